// The request's SERVER span (packages/2-infrastructure/tracing), put in front of an app's own stack: the caller's
// traceparent is continued, the span is named by the route the app's router matched, and
// ctx.state.traceId is set before the envelope writes the request's log line. With tracing off
// the app is left as it is, so nothing runs per request.
import type { Tracing } from '@devplat/tracing';
import type Koa from 'koa';

export function withTracing<App extends Koa>(app: App, tracing: Tracing): App {
  if (tracing.enabled) app.middleware.unshift(tracing.koa());
  return app;
}
