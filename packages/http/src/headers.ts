import { randomUUID } from 'node:crypto';
import { apiVersion } from '@devplat/contract';
import type { Context, Middleware } from 'koa';

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/** No sniffing, no framing, no referrer leaks. */
const securityHeaders = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'Referrer-Policy': 'no-referrer',
} as const;

/**
 * The contract's common headers: a server-generated X-Request-ID (an incoming one is never trusted
 * or echoed), X-Service-API-Version 1.0 and Cache-Control no-store; and the security headers.
 */
export function setCommonHeaders(ctx: Context): string {
  const requestId = newRequestId();
  ctx.state.requestId = requestId;
  ctx.set({
    'X-Request-ID': requestId,
    'X-Service-API-Version': apiVersion,
    'Cache-Control': 'no-store',
    ...securityHeaders,
  });
  return requestId;
}

/** The common and security headers on every answer (see setCommonHeaders). */
export function commonHeaders(): Middleware {
  return async (ctx, next) => {
    setCommonHeaders(ctx);
    await next();
  };
}
