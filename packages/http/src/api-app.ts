// The one stack every JSON API app is built from, so that what every API needs goes in one place.
import type Router from '@koa/router';
import Koa, { type Middleware } from 'koa';
import { apiEnvelope } from './envelope.ts';
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
   * Trust the X-Forwarded-* headers of a proxy in front (Koa's app.proxy). The client address is
   * the last X-Forwarded-For entry, the one the proxy added: earlier ones are the client's to forge.
   */
  proxy?: boolean;
  /** Records each answered request (metrics). */
  observe?: RequestObserver;
}

/**
 * A JSON API as a Koa app: the envelope (request id, common and security headers, one log line per
 * request, every error a Problem, ready answers, the body limit), then `routes` in order, then 404
 * for what none of them answered (each operation answers its own 405). A layer added here costs
 * every call of every API, the benchmarked hot routes included: prefer growing the envelope.
 */
export function apiApp(
  { logger, maxBodyBytes, keys, proxy = false, observe }: ApiAppOptions,
  ...routes: (Router | Middleware)[]
): Koa {
  const app = new Koa({ keys, proxy, maxIpsCount: 1 });
  app.silent = true;
  app.use(apiEnvelope(logger, { maxBodyBytes, observe }));
  for (const route of routes) app.use(typeof route === 'function' ? route : route.routes());
  app.use(notFound());
  return app;
}
