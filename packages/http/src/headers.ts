import { randomUUID } from 'node:crypto';
import { apiVersion } from '@devplat/contract';
import type { Context } from 'koa';
import { securityHeaders } from './security-headers.ts';

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/** Every answer's headers but the request id, as name, value, name, value... */
const fixedHeaders = Object.entries({
  'X-Service-API-Version': apiVersion,
  'Cache-Control': 'no-store',
  ...securityHeaders("default-src 'none'; frame-ancestors 'none'"),
}).flat();

/**
 * The contract's common headers: a server-generated X-Request-ID (an incoming one is never trusted
 * or echoed), X-Service-API-Version 1.0 and Cache-Control no-store; and the security headers. As a
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
