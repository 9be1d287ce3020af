// startTracing: OpenTelemetry when an OTLP endpoint is configured, the pass-through otherwise.
// Spans are batched and POSTed as OTLP/HTTP JSON to {OTEL_EXPORTER_OTLP_ENDPOINT}/v1/traces.
// Nothing global is registered: the tracer provider, the async context and the propagator belong
// to the returned object, and only the seams it hands out (serve, fetch, span, the wrappers) use them.
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { defaultResource, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { tracedFetch } from './client.ts';
import { type Core, currentTraceId, internalSpan } from './core.ts';
import { tracedAdapter, tracedQuery } from './database.ts';
import { noopTracing } from './noop.ts';
import { traceRedis } from './redis.ts';
import { serve, serveMiddleware } from './server.ts';
import { type Environment, tracingSettings } from './settings.ts';
import type { Tracing } from './types.ts';

/** How long shutdown waits for the last spans to be exported. */
const shutdownMs = 2_000;

export interface TracingOptions {
  /** service.name, unless OTEL_SERVICE_NAME says otherwise. */
  serviceName: string;
  /** Where the OTEL_* variables are read; process.env by default. */
  env?: Environment;
}

/**
 * Tracing per the OTEL_* variables: off (the pass-through, `enabled: false`) unless
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. Throws a ConfigError (loadConfigOrExit's exit 78) when an endpoint is not an http(s) URL.
 */
export function startTracing({ serviceName, env = process.env }: TracingOptions): Tracing {
  const settings = tracingSettings(env, serviceName);
  if (settings === null) return noopTracing;
  const exporter = new OTLPTraceExporter({
    url: settings.tracesUrl,
    headers: settings.headers,
    timeoutMillis: 5_000,
  });
  const provider = new TracerProvider({
    resource: defaultResource().merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: settings.serviceName })),
    sampler: settings.sampler,
    // A statement's text is the longest value; beyond this it is cut.
    spanLimits: { attributeValueLengthLimit: 4_096, attributeCountLimit: 32 },
    spanProcessors: [
      new BatchSpanProcessor({ exporter, maxQueueSize: 8_192, maxExportBatchSize: 512, scheduledDelayMillis: 1_000 }),
    ],
  });
  const contexts = new AsyncLocalStorageContextManager().enable();
  const core: Core = {
    tracer: provider.getTracer('@devplat/tracing'),
    contexts,
    propagator: new W3CTraceContextPropagator(),
  };
  const middleware = serveMiddleware(core);
  let stopped: Promise<void> | undefined;
  return {
    enabled: true,
    serve: (ctx, handle) => serve(core, ctx, handle),
    koa: () => middleware,
    fetch: tracedFetch(core),
    span: (name, attributes, fn) => internalSpan(core, name, attributes, fn),
    query: (query, target) => tracedQuery(core, query, target),
    prismaAdapter: (factory, target) => tracedAdapter(core, factory, target),
    redis: (client) => traceRedis(core, client),
    traceId: () => currentTraceId(core),
    shutdown: () => {
      stopped ??= boundedShutdown(provider).finally(() => contexts.disable());
      return stopped;
    },
  };
}

async function boundedShutdown(provider: TracerProvider): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, shutdownMs);
    timer.unref();
  });
  // An exporter that fails or hangs must not hold up or fail the process's drain.
  await Promise.race([provider.shutdown().catch(() => {}), timeout]);
  clearTimeout(timer);
}
