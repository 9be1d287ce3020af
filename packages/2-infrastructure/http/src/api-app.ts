// The one stack every JSON API app is built from, so that what every API needs goes in one place.
import type Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { apiEnvelope } from './envelope.ts';
import { type ForwardedTrust, forwardedTrust, trustedPeer } from './forwarded.ts';
import type { Logger } from './logger.ts';
import type { RequestObserver } from './request-metrics.ts';
import { notFound } from './routes.ts';

export interface ApiAppOptions {
  logger: Logger;
  /** Refuse a body announced larger than this many bytes before anything reads it. */
  maxBodyBytes?: number;
  /** Keys for signed cookies (Koa's app.keys). */
  keys?: string[];
  /**
   * Whose X-Forwarded-* headers to believe (forwarded.ts). The client address is then the last
   * X-Forwarded-For entry, the one the proxy added: earlier ones are the client's to forge.
   */
  forwarded?: ForwardedTrust;
  /** Records each answered request (metrics). */
  observe?: RequestObserver;
  /**
   * TRUSTED_PROXIES for the gateway's X-Request-ID alone (default: forwarded's): an API that
   * believes no X-Forwarded-* still logs under the gateway's id.
   */
  requestIdsFrom?: readonly string[] | null;
}

/**
 * A JSON API as a Koa app: the envelope (request id, common and security headers, one log line per
 * request, every error a Problem, ready answers, the body limit), then `routes` in order, then 404
 * for what none of them answered (each operation answers its own 405). A layer added here costs
 * every call of every API, the benchmarked hot routes included: prefer growing the envelope.
 */
export function apiApp(
  {
    logger,
    maxBodyBytes,
    keys,
    forwarded = { secure: false },
    observe,
    requestIdsFrom = forwarded.trustedProxies ?? null,
  }: ApiAppOptions,
  ...routes: (Router | Middleware)[]
): Koa {
  const { proxy, guard, peer } = forwardedTrust(forwarded);
  const app = new Koa({ keys, proxy, maxIpsCount: 1 });
  app.silent = true;
  if (guard) app.use(guard);
  app.use(
    apiEnvelope(logger, {
      maxBodyBytes,
      observe,
      trustedPeer: requestIdsFrom === forwarded.trustedProxies ? peer : trustedPeer(requestIdsFrom),
    }),
  );
  for (const route of routes) app.use(typeof route === 'function' ? route : route.routes());
  app.use(notFound());
  return app;
}
