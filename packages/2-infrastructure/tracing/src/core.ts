// What every seam of a running Tracing shares: its tracer, its own async context (not the global
// one: nothing outside this package's seams is patched or registered) and the W3C propagator.
import { type Context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import type { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import type { W3CTraceContextPropagator } from '@opentelemetry/core';
import { type Attributes, errorType, safeName, safeValue, sanitize } from './attributes.ts';
import type { SpanHandle } from './types.ts';

export interface Core {
  tracer: Tracer;
  contexts: AsyncLocalStorageContextManager;
  propagator: W3CTraceContextPropagator;
}

/** Marks a span failed: status error (without a message, which could carry anything) and error.type. */
export function markFailed(span: Span, type: string): void {
  const safe = safeValue('error.type', type);
  if (safe !== undefined) span.setAttribute('error.type', safe);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

export function handleOf(span: Span): SpanHandle {
  return {
    set: (key, value) => {
      const safe = safeValue(key, value);
      if (safe !== undefined) span.setAttribute(key, safe);
    },
    fail: (type) => markFailed(span, type),
  };
}

/** Runs `fn` with `span` current (a child of `parent`), then ends it; a throw marks it failed and passes on. */
export async function runInSpan<T>(core: Core, span: Span, parent: Context, fn: () => Promise<T>): Promise<T> {
  try {
    return await core.contexts.with(trace.setSpan(parent, span), fn);
  } catch (error) {
    markFailed(span, errorType(error));
    throw error;
  } finally {
    span.end();
  }
}

/** An INTERNAL span around fn, a child of the current span (or a new trace's root). */
export function internalSpan<T>(
  core: Core,
  name: string,
  attributes: Attributes,
  fn: (span: SpanHandle) => Promise<T>,
): Promise<T> {
  const parent = core.contexts.active();
  const span = core.tracer.startSpan(
    safeName(name, 'span'),
    { kind: SpanKind.INTERNAL, attributes: sanitize(attributes) },
    parent,
  );
  return runInSpan(core, span, parent, () => fn(handleOf(span)));
}

/**
 * The current context when a recorded span is current: calls to a store get spans only inside a
 * traced operation, so a connection's handshake or a background poll opens no trace of its own.
 */
export function recordedParent(core: Core): Context | undefined {
  const parent = core.contexts.active();
  return trace.getSpan(parent)?.isRecording() ? parent : undefined;
}

export function currentTraceId(core: Core): string | undefined {
  return trace.getSpan(core.contexts.active())?.spanContext().traceId;
}
