import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { apiVersion } from '@devplat/contract';
import type { Context } from 'koa';
import type { TrustedPeer } from './forwarded.ts';
import { securityHeaders } from './security-headers.ts';

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

// nginx's $request_id (32 hex digits): bare from ingress-nginx, with our prefix from infra/gateway.
const gatewayRequestId = /^(?:req_)?([0-9a-f]{32})$/;

/**
 * The request's id: the gateway's own (its X-Request-ID, in our format) when the request came from
 * a trusted proxy (TRUSTED_PROXIES), so one id names the request in the gateway's log and ours;
 * else a new one. Checked only where the header is present: a direct call pays nothing.
 */
export function requestIdOf(request: IncomingMessage, trustedPeer: TrustedPeer): string {
  const forwarded = request.headers['x-request-id'];
  if (typeof forwarded !== 'string' || trustedPeer === null) return newRequestId();
  const digits = gatewayRequestId.exec(forwarded)?.[1];
  return digits && trustedPeer(request.socket.remoteAddress) ? `req_${digits}` : newRequestId();
}

/** Every answer's headers but the request id, as name, value, name, value... */
const fixedHeaders = Object.entries({
  'X-Service-API-Version': apiVersion,
  'Cache-Control': 'no-store',
  ...securityHeaders("default-src 'none'; frame-ancestors 'none'"),
}).flat();

/**
 * The contract's common headers: X-Request-ID (ours, or the trusted gateway's: a client's own is
 * never echoed), X-Service-API-Version 1.0 and Cache-Control no-store; and the security headers. As a
 * flat list for `writeHead`.
 */
export function commonHeaderList(requestId: string): string[] {
  return ['X-Request-ID', requestId, ...fixedHeaders];
}

/** Sets the common headers (see commonHeaderList) that the answer does not set itself. */
export function setCommonHeaders(ctx: Context, requestId: string): void {
  const list = commonHeaderList(requestId);
  for (let i = 0; i < list.length; i += 2) {
    if (!ctx.res.hasHeader(list[i] as string)) ctx.set(list[i] as string, list[i + 1] as string);
  }
}
