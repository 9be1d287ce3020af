// The developer console on CONSOLE_URL: the JSON API under /api and the web UI beside it, both on
// the same domain code. Sandbox only: in production, or while the platform is off, every path
// answers 503 FEATURE_DISABLED.
import type { Config } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import {
  commonHeaders,
  isDependencyFailure,
  type Logger,
  notFound,
  ProblemError,
  problemErrors,
  requestLog,
  securityHeaders,
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

/** The console exists only in a non-production environment with the platform switched on. */
export const consoleEnabled = (config: Config) => config.platformEnabled && config.environment !== 'production';

const disabledDetail = 'The developer console is sandbox only and is switched off in this environment.';

const pageHeaders: Middleware = async (ctx, next) => {
  ctx.set(
    'Content-Security-Policy',
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  );
  await next();
};

// Pages answer in HTML; nothing internal reaches the browser.
function pageErrors(logger: Logger): Middleware {
  const show = (ctx: Koa.Context, status: number, title: string, message: string, link?: string) => {
    ctx.status = status;
    ctx.type = 'html';
    ctx.body = messagePage({ title }, message, link);
  };
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && !ctx.body) show(ctx, 404, 'Not found', 'There is no page here.');
    } catch (error) {
      if (error instanceof ProblemError && error.code === 'NOT_SIGNED_IN') {
        return show(ctx, 401, 'Signed out', error.detail, '<a href="/signin">Sign in</a>');
      }
      if (error instanceof ProblemError && error.status < 500) {
        return show(ctx, error.status, 'That did not work', error.detail);
      }
      if (error instanceof ProblemError && error.code === 'FEATURE_DISABLED') {
        return show(ctx, 503, 'Console unavailable', error.detail, '');
      }
      const requestId = ctx.state.requestId as string;
      logger.error(
        { request_id: requestId, err: { name: (error as Error)?.name, message: (error as Error)?.message } },
        'console page error',
      );
      const unavailable = isDependencyFailure(error);
      show(
        ctx,
        unavailable ? 503 : 500,
        'Something went wrong',
        `${unavailable ? 'The console is temporarily unavailable. Try again shortly.' : 'An internal error occurred.'} Reference: ${requestId}.`,
      );
    }
  };
}

export function buildConsoleApp({ config, prisma, store, logger }: ConsoleDependencies): Koa {
  const domain = consoleDomain(config, prisma, store);
  const secure = config.consoleUrl.protocol === 'https:';
  const api = consoleApiRouter(domain);
  const web = consoleWebRouter(domain, secure);
  const enabled = consoleEnabled(config);
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
  app.use(securityHeaders());
  app.use(requestLog(logger));
  app.use(only(true, problemErrors(logger)));
  app.use(only(false, pageHeaders));
  app.use(only(false, pageErrors(logger)));
  app.use(async (_ctx, next) => {
    if (!enabled) throw new ProblemError('FEATURE_DISABLED', disabledDetail);
    await next();
  });
  app.use(api.routes());
  app.use(web.routes());
  app.use(only(true, notFound()));
  return app;
}
