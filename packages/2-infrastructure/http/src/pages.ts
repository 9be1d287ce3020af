// The stack every page app (the player client, the console's web UI) is built from: a request id
// on every answer and in its one log line, the page security headers, a refusal shown with its
// detail, a failure shown with the logged request id as its reference (nothing internal reaches
// the browser), 404 as a page and a wrong method on a known path as a 405 page with Allow.

import { DependencyUnavailableError, UnstorableValueError } from '@devplat/errors';
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import { unstorableValueProblem } from './errors.ts';
import { type ForwardedTrust, forwardedTrust, type TrustedPeer } from './forwarded.ts';
import { requestIdOf } from './headers.ts';
import type { Html } from './html.ts';
import { type Logger, logRequest } from './logger.ts';
import { ProblemError } from './problem.ts';
import { RequestAbortedError } from './request-cut-off.ts';
import type { RequestObserver } from './request-metrics.ts';
import { type OperationHandlers, operation } from './routes.ts';
import { pageHeaders } from './security-headers.ts';
import { logUnavailable } from './unavailable-log.ts';

const withoutFormAction =
  (headers: Record<string, string>, guard?: Middleware): Middleware =>
  (ctx, next) => {
    ctx.set(headers);
    return guard ? guard(ctx, next) : next();
  };

/** A page for a refusal (`problem` is set) or a failure. */
export interface ErrorPage {
  status: number;
  title: string;
  message: string;
  problem?: ProblemError;
}

/** Renders a site's error page in its own layout. */
export type RenderErrorPage = (page: ErrorPage) => Html;

/** Answers with a page. */
export function sendPage(ctx: Context, status: number, page: Html): void {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = page.toString();
}

// A refusal shows its detail (and sends its headers: Allow); anything else is logged and shows
// the request id of the log lines as its reference. A switched-off site is a refusal too. A body
// the client cut off is no failure: the request's line logs it as a 499, and nobody sees this page.
function errorPageFor(ctx: Context, thrown: unknown, logger: Logger): ErrorPage {
  const error =
    thrown instanceof UnstorableValueError ? unstorableValueProblem(thrown, logger, ctx.state.requestId) : thrown;
  if (error instanceof RequestAbortedError) {
    return { status: 400, title: 'That did not work', message: 'The form did not arrive whole.' };
  }
  if (error instanceof ProblemError && (error.status < 500 || error.code === 'FEATURE_DISABLED')) {
    ctx.set(error.headers);
    return { status: error.status, title: 'That did not work', message: error.detail, problem: error };
  }
  const requestId = ctx.state.requestId;
  const unavailable = error instanceof DependencyUnavailableError;
  if (unavailable) logUnavailable(logger, error, requestId);
  else {
    logger.error(
      { request_id: requestId, err: { name: (error as Error)?.name, message: (error as Error)?.message } },
      'page error',
    );
  }
  return {
    status: unavailable ? 503 : 500,
    title: 'Something went wrong',
    message: `${unavailable ? 'The service is temporarily unavailable. Try again shortly.' : 'An internal error occurred.'} Reference: ${requestId}.`,
  };
}

function pageFront(
  logger: Logger,
  render: RenderErrorPage,
  observe: RequestObserver | undefined,
  trustedPeer: TrustedPeer,
  everyPage: Record<string, string>,
): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    const requestId = requestIdOf(ctx.req, trustedPeer);
    ctx.state.requestId = requestId;
    ctx.set('X-Request-ID', requestId);
    ctx.set(everyPage);
    try {
      await next();
      if (ctx.status === 404 && !ctx.body) {
        sendPage(ctx, 404, render({ status: 404, title: 'Not found', message: 'There is no page here.' }));
      }
    } catch (error) {
      const page = errorPageFor(ctx, error, logger);
      sendPage(ctx, page.status, render(page));
    } finally {
      logRequest(logger, ctx, started);
      observe?.(ctx, (performance.now() - started) / 1000);
    }
  };
}

export interface PageAppOptions {
  logger: Logger;
  errorPage: RenderErrorPage;
  /** Keys for signed cookies (Koa's app.keys). */
  keys?: string[];
  /** Whose X-Forwarded-* headers to believe (forwarded.ts; only the proxy's own X-Forwarded-For entry). */
  forwarded?: ForwardedTrust;
  /** Runs before every route: a site's switch. */
  guard?: Middleware;
  /** Records each answered request (metrics). */
  observe?: RequestObserver;
  /** The site's pages load its own script files and streams (the console's): see pageHeaders. */
  scripts?: boolean;
}

export interface PageRouteOptions {
  /** false only where a form answers with a redirect to another site (see pageHeaders). */
  formAction?: boolean;
  /** Runs before each of the path's handlers (not before its 405): sign-in, say. */
  guard?: Middleware;
}

export interface PageApp {
  app: Koa;
  /**
   * Registers the pages of a path (exact: case-sensitive, no trailing slash). GET answers HEAD
   * too; any other method is a 405 page with Allow.
   */
  route(path: string, handlers: OperationHandlers, options?: PageRouteOptions): void;
}

/**
 * An https site's pages reached over plain http (straight to a replica, past the gateway, or from
 * a peer TRUSTED_PROXIES does not name): refused, since none of its Secure cookies could be set.
 */
const httpsOnly: Middleware = (ctx, next) => {
  if (!ctx.secure) throw new ProblemError('MALFORMED_REQUEST', 'This site is served over https only.');
  return next();
};

export function pageApp({
  logger,
  errorPage,
  keys,
  forwarded = { secure: false },
  guard,
  observe,
  scripts = false,
}: PageAppOptions): PageApp {
  const redirectingForms = pageHeaders(false, scripts);
  const router = new Router({ strict: true, sensitive: true });
  const trust = forwardedTrust(forwarded);
  const app = new Koa({ keys, proxy: trust.proxy, maxIpsCount: 1 });
  app.silent = true;
  if (trust.guard) app.use(trust.guard);
  app.use(pageFront(logger, errorPage, observe, trust.peer, pageHeaders(true, scripts)));
  if (guard) app.use(guard);
  if (forwarded.secure) app.use(httpsOnly);
  app.use(router.routes());
  return {
    app,
    route: (path, handlers, { formAction = true, guard: routeGuard } = {}) =>
      operation(router, path, handlers, formAction ? routeGuard : withoutFormAction(redirectingForms, routeGuard)),
  };
}
