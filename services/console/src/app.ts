// The developer console on CONSOLE_URL: the JSON API under /api and the web UI beside it, both on
// the same domain code. Sandbox only: in production, or while the platform is off, every path
// answers 503 FEATURE_DISABLED.
import { type Config, sandboxToolsEnabled } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import {
  commonHeaders,
  type Logger,
  notFound,
  ProblemError,
  pageErrors,
  problemErrors,
  requestLog,
  type ShowPage,
} from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import Koa, { type Middleware } from 'koa';
import { consoleApiRouter } from './api/routes.ts';
import { consoleDomain } from './domain/index.ts';
import { messagePage } from './web/pages.ts';
import { consoleWebRouter } from './web/routes.ts';

export interface ConsoleDependencies {
  config: Config;
  prisma: PrismaClient;
  store: KeyValueStore;
  logger: Logger;
}

const disabledDetail = 'The developer console is sandbox only and is switched off in this environment.';

const pageHeaders: Middleware = async (ctx, next) => {
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  await next();
};

// A page for a refusal or a failure; signing in again and a switched-off console get their own.
const showPage: ShowPage = (ctx, status, title, message, problem) => {
  ctx.status = status;
  ctx.type = 'html';
  if (problem?.code === 'NOT_SIGNED_IN') {
    ctx.body = messagePage({ title: 'Signed out' }, message, '<a href="/signin">Sign in</a>');
  } else if (problem?.code === 'FEATURE_DISABLED') {
    ctx.body = messagePage({ title: 'Console unavailable' }, message, '');
  } else {
    ctx.body = messagePage({ title }, message);
  }
};

export function buildConsoleApp({ config, prisma, store, logger }: ConsoleDependencies): Koa {
  const domain = consoleDomain(config, prisma, store);
  const secure = config.consoleUrl.protocol === 'https:';
  const api = consoleApiRouter(domain);
  const web = consoleWebRouter(domain, secure);
  const enabled = sandboxToolsEnabled(config);
  const isApi = (path: string) => path === '/api' || path.startsWith('/api/');

  // The API answers Problems; the web UI answers pages.
  const only =
    (api: boolean, middleware: Middleware): Middleware =>
    (ctx, next) =>
      isApi(ctx.path) === api ? middleware(ctx, next) : next();

  const app = new Koa();
  app.silent = true;
  app.proxy = secure;
  app.use(commonHeaders());
  app.use(requestLog(logger));
  app.use(only(true, problemErrors(logger)));
  app.use(only(false, pageHeaders));
  app.use(only(false, pageErrors(logger, showPage)));
  app.use(async (_ctx, next) => {
    if (!enabled) throw new ProblemError('FEATURE_DISABLED', disabledDetail);
    await next();
  });
  app.use(api.routes());
  app.use(web.routes());
  app.use(only(true, notFound()));
  return app;
}
