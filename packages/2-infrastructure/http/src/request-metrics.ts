// One observation per answered request for devplat_http_request_duration_seconds: the app that
// answered, the route template the router matched (never the path with its values), the method
// and the status (499 for a request its client went away from: see loggedStatus). A 5xx answer is
// also counted by its error code (devplat_http_server_errors_total), so the error-ratio alert can
// leave out FEATURE_DISABLED, the 503 the contract answers by design.
import { type Metrics, methodLabel } from '@devplat/metrics';
import type { Context } from 'koa';
import { loggedStatus } from './logger.ts';

/** Records a request answered `seconds` after it arrived. */
export type RequestObserver = (ctx: Context, seconds: number) => void;

/** The codes handlers leave in ctx.state are the catalogue's and OAuth's: anything else is `other`. */
const codeShape = /^[A-Za-z_]{1,40}$/;

export function requestObserver(metrics: Metrics, app: string): RequestObserver {
  return (ctx, seconds) => {
    const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    const route = typeof matched === 'string' ? matched : 'unmatched';
    const method = methodLabel(ctx.method);
    const status = loggedStatus(ctx);
    metrics.requests.labels(app, route, method, String(status)).observe(seconds);
    if (status >= 500 && status <= 599) {
      const code = ctx.state.errorCode;
      metrics.serverErrors.inc({
        app,
        route,
        method,
        code: code === undefined ? 'none' : codeShape.test(code) ? code : 'other',
      });
    }
  };
}

/** One observer that runs each given one in turn (none given: undefined, nothing to observe). */
export function observeAll(...observers: (RequestObserver | undefined)[]): RequestObserver | undefined {
  const given = observers.filter((observer): observer is RequestObserver => observer !== undefined);
  if (given.length <= 1) return given[0];
  return (ctx, seconds) => {
    for (const observer of given) observer(ctx, seconds);
  };
}
