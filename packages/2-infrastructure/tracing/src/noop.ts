// Tracing switched off: the wrappers hand back what they were given and the seams call straight
// through, so nothing is done per request.
import type { Middleware } from 'koa';
import type { SpanHandle, Tracing } from './types.ts';

const passThrough: Middleware = (_ctx, next) => next();
const noSpan: SpanHandle = { set: () => {}, fail: () => {} };

export const noopTracing: Tracing = Object.freeze({
  enabled: false,
  serve: (_ctx, handle) => handle(),
  koa: () => passThrough,
  fetch: globalThis.fetch,
  span: (_name, _attributes, fn) => fn(noSpan),
  query: (query) => query,
  prismaAdapter: (factory) => factory,
  redis: () => {},
  traceId: () => undefined,
  shutdown: async () => {},
} satisfies Tracing);
