// fetch for outgoing calls: a CLIENT span, and the traceparent (and tracestate) header that lets
// the server called continue the trace. The span carries where the call went (host, port, scheme)
// and how it was answered; never the path, the query or a header, any of which may hold a secret.
import { SpanKind, SpanStatusCode, type TextMapSetter, trace } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import { sanitize, setSafeAttributes } from './attributes.ts';
import { type Core, runInSpan } from './core.ts';
import { methodName } from './server.ts';

const headerSetter: TextMapSetter<Headers> = { set: (headers, key, value) => headers.set(key, value) };

const defaultPorts: Record<string, number> = { 'http:': 80, 'https:': 443 };

function target(input: Parameters<typeof fetch>[0]): URL | undefined {
  const href = input instanceof Request ? input.url : String(input);
  return URL.parse(href) ?? undefined;
}

export function tracedFetch(core: Core, send: typeof fetch = globalThis.fetch): typeof fetch {
  return (input, init) => {
    const url = target(input);
    const method = methodName((init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase());
    const parent = core.contexts.active();
    const span = core.tracer.startSpan(
      method,
      {
        kind: SpanKind.CLIENT,
        attributes: sanitize({
          [ATTR_HTTP_REQUEST_METHOD]: method,
          [ATTR_SERVER_ADDRESS]: url?.hostname.replace(/^\[|\]$/g, ''),
          [ATTR_SERVER_PORT]: url && (Number(url.port) || defaultPorts[url.protocol]),
          [ATTR_URL_SCHEME]: url?.protocol.slice(0, -1),
        }),
      },
      parent,
    );
    return runInSpan(core, span, parent, async () => {
      // Headers fetch would refuse fail the span too (a rejection, as fetch's own).
      const headers = new Headers(init?.headers ?? (input instanceof Request ? input.headers : undefined));
      core.propagator.inject(trace.setSpan(parent, span), headers, headerSetter);
      const response = await send(input, { ...init, headers });
      setSafeAttributes(span, { [ATTR_HTTP_RESPONSE_STATUS_CODE]: response.status });
      if (response.status >= 400) {
        span.setAttribute(ATTR_ERROR_TYPE, String(response.status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      return response;
    });
  };
}
