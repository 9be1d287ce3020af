import { randomUUID } from 'node:crypto';
import { apiVersion } from '@devplat/contract';
import type { Middleware } from 'koa';

export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}

/**
 * The contract's common headers on every response: a server-generated X-Request-ID (an incoming
 * one is never trusted or echoed), X-Service-API-Version 1.0 and Cache-Control no-store.
 */
export function commonHeaders(): Middleware {
  return async (ctx, next) => {
    const requestId = newRequestId();
    ctx.state.requestId = requestId;
    ctx.set({ 'X-Request-ID': requestId, 'X-Service-API-Version': apiVersion, 'Cache-Control': 'no-store' });
    await next();
  };
}

/** Headers every page and API answer carries: no sniffing, no framing, no referrer leaks. */
export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    ctx.set({
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
      'Referrer-Policy': 'no-referrer',
    });
    await next();
  };
}
