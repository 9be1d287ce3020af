// What observes an app's answered requests: its request metrics under the app's name, where the
// process keeps metrics, then whatever else notes each request (the apps' request log).
import type { Metrics } from '@devplat/metrics';
import { observeAll, type RequestObserver, requestObserver } from './request-metrics.ts';

/** The app's request metrics (none without metrics), then each other observer given; none at all: undefined. */
export function appObserver(
  app: string,
  metrics: Metrics | undefined,
  ...others: (RequestObserver | undefined)[]
): RequestObserver | undefined {
  return observeAll(metrics && requestObserver(metrics, app), ...others);
}
