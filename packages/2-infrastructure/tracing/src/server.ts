// The SERVER span of a request: the caller's traceparent continued, named by the route template
// once the router has matched one, with the status it was answered with.
import { ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode, type TextMapGetter, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { Context, Middleware } from 'koa';
import { errorType, sanitize, setSafeAttributes } from './attributes.ts';
import { type Core, markFailed } from './core.ts';

const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'CONNECT', 'TRACE']);

/** The method, or _OTHER for one outside HTTP's (the semantic conventions' rule: bounded values). */
export const methodName = (method: string) => (knownMethods.has(method) ? method : '_OTHER');

const headerGetter: TextMapGetter<Context['headers']> = {
  keys: (headers) => Object.keys(headers),
  get: (headers, key) => headers[key],
};

const routeOf = (ctx: Context) => {
  const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
  return typeof matched === 'string' ? matched : undefined;
};

/** Names the span by its route and records how the request was answered, then ends it. */
function end(span: Span, method: string, ctx: Context, failure: unknown): void {
  const route = routeOf(ctx);
  // A throw that escaped `handle` is answered 500 by Koa.
  const status = failure === undefined ? ctx.status : 500;
  span.updateName(`${method} ${route ?? 'unmatched'}`);
  const requestId = ctx.state.requestId;
  setSafeAttributes(span, {
    [ATTR_HTTP_ROUTE]: route,
    [ATTR_HTTP_RESPONSE_STATUS_CODE]: status,
    // The request id of the log line and the X-Request-ID header, when the app set one.
    'devplat.request_id': typeof requestId === 'string' ? requestId : undefined,
  });
  if (failure !== undefined) markFailed(span, errorType(failure));
  else if (status >= 500) {
    span.setAttribute(ATTR_ERROR_TYPE, String(status));
    span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

export async function serve<T>(core: Core, ctx: Context, handle: () => Promise<T>): Promise<T> {
  const parent = core.propagator.extract(ROOT_CONTEXT, ctx.headers, headerGetter);
  const method = methodName(ctx.method);
  const span = core.tracer.startSpan(
    method,
    {
      kind: SpanKind.SERVER,
      attributes: sanitize({
        [ATTR_HTTP_REQUEST_METHOD]: method,
        [ATTR_URL_SCHEME]: ctx.protocol,
        [ATTR_SERVER_ADDRESS]: ctx.hostname,
      }),
    },
    parent,
  );
  ctx.state.traceId = span.spanContext().traceId;
  let result: T;
  try {
    result = await core.contexts.with(trace.setSpan(parent, span), handle);
  } catch (error) {
    end(span, method, ctx, error ?? new Error('thrown'));
    throw error;
  }
  end(span, method, ctx, undefined);
  return result;
}

export function serveMiddleware(core: Core): Middleware {
  return (ctx, next) => serve(core, ctx, next);
}
