// The developer console on CONSOLE_URL: the JSON API under /api, the docs under /docs, the devplat
// CLI's package under /downloads, and the web UI beside them, composed by path (the API and the web
// UI on the same domain code). Sandbox only: in production, or while the platform is off, the API
// answers 503 FEATURE_DISABLED Problems and the web UI 503 pages.

import { join } from 'node:path';
import { type Config, sandboxToolsEnabled } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import { type Logger, type Route, routesOf, withTracing } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';
import { noopTracing, type Tracing } from '@devplat/tracing';
import Koa from 'koa';
import { buildConsoleApi } from './api/app.ts';
import { consoleDomain } from './console-domain.ts';
import { docsHandler, isDocs } from './docs.ts';
import { downloadsHandler, isDownloads } from './downloads.ts';
import { buildConsoleWeb } from './web/app.ts';

export interface ConsoleDependencies {
  config: Config;
  prisma: PrismaClient;
  store: KeyValueStore;
  /** Names players in the consent.revoked events of an app deleted or losing a user scope. */
  pairwiseSecret: string;
  logger: Logger;
  metrics?: Metrics;
  tracing?: Tracing;
}

const isApi = (path: string) => path === '/api' || path.startsWith('/api/');

/**
 * One app whose request listener hands each request, whole, to the API or to the web UI; `routes`
 * are both doors' (the docs and the downloads are files below /docs and /downloads).
 */
export function buildConsoleApp({
  config,
  prisma,
  store,
  pairwiseSecret,
  logger,
  metrics,
  tracing = noopTracing,
}: ConsoleDependencies): Koa & { routes: readonly Route[] } {
  const domain = consoleDomain(config, prisma, store, pairwiseSecret, metrics);
  const enabled = sandboxToolsEnabled(config);
  const secure = config.consoleUrl.protocol === 'https:';
  // Each door traces its own requests: the span is named by the route its router matched.
  const { trustedProxies } = config;
  const forwarded = { secure, trustedProxies };
  const apiApp = withTracing(buildConsoleApi(domain, logger, { enabled, forwarded, metrics }), tracing);
  const webApp = withTracing(
    buildConsoleWeb(domain, logger, { ...forwarded, apiBase: config.baseUrl.href, enabled, metrics }),
    tracing,
  );
  const api = apiApp.callback();
  const web = webApp.callback();
  const app = new Koa();
  app.silent = true;
  const docs = docsHandler(join(config.dataDir, 'docs'), {
    base_url: config.baseUrl.href,
    console_url: config.consoleUrl.origin,
  });
  const downloads = downloadsHandler(join(config.dataDir, 'cli'));
  app.use((ctx) => {
    ctx.respond = false;
    // The docs and the downloads are the console's too: switched off with it (the web UI answers then).
    if (enabled && isDocs(ctx.path)) return docs(ctx.req, ctx.res);
    if (enabled && isDownloads(ctx.path)) return downloads(ctx.req, ctx.res);
    return (isApi(ctx.path) ? api : web)(ctx.req, ctx.res);
  });
  return Object.assign(app, { routes: routesOf(apiApp, webApp) });
}
