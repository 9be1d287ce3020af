// One observation per answered request for devplat_http_request_duration_seconds: the app that
// answered, the route template the router matched (never the path with its values), the method
// and the status (499 for a request its client went away from: see loggedStatus).
import { type Metrics, methodLabel } from '@devplat/metrics';
import type { Context } from 'koa';
import { loggedStatus } from './logger.ts';

/** Records a request answered `seconds` after it arrived. */
export type RequestObserver = (ctx: Context, seconds: number) => void;

export function requestObserver(metrics: Metrics, app: string): RequestObserver {
  return (ctx, seconds) => {
    const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
    const route = typeof matched === 'string' ? matched : 'unmatched';
    metrics.requests.labels(app, route, methodLabel(ctx.method), String(loggedStatus(ctx))).observe(seconds);
  };
}
