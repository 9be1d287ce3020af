// The OpenTelemetry environment variables this package honours. Tracing is on only when an OTLP
// endpoint is set (and OTEL_SDK_DISABLED is not true).
import { ConfigError } from '@devplat/config';
import { parseKeyPairsIntoRecord } from '@opentelemetry/core';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type Sampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import { type Environment, text, tracingRequested } from './switch.ts';

export type { Environment };

export interface TracingSettings {
  serviceName: string;
  /** Where spans are POSTed as OTLP/HTTP JSON. */
  tracesUrl: string;
  /** OTEL_EXPORTER_OTLP_HEADERS and OTEL_EXPORTER_OTLP_TRACES_HEADERS (the latter wins). */
  headers: Record<string, string>;
  sampler: Sampler;
}

function httpUrl(value: string, variable: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(variable, 'is not a URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(variable, 'must be http(s)');
  return url;
}

/**
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as it is, or OTEL_EXPORTER_OTLP_ENDPOINT (a base URL, set
 * whenever tracing is on) with v1/traces appended, as the OTLP exporter specification reads them.
 */
function tracesUrlOf(env: Environment, base: string): string {
  const signal = text(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  if (signal !== undefined) return httpUrl(signal, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT').href;
  const url = httpUrl(base, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return new URL('v1/traces', url).href;
}

function ratio(env: Environment): number {
  const value = Number(text(env, 'OTEL_TRACES_SAMPLER_ARG') ?? 1);
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : 1;
}

/** OTEL_TRACES_SAMPLER (and its _ARG); by default a trace follows its parent, and is kept when it has none. */
function samplerOf(env: Environment): Sampler {
  switch (text(env, 'OTEL_TRACES_SAMPLER')) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio(env));
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio(env)) });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The settings, or null when tracing is off. Throws a ConfigError naming a variable that is not an http(s) URL. */
export function tracingSettings(env: Environment, serviceName: string): TracingSettings | null {
  if (!tracingRequested(env)) return null;
  const tracesUrl = tracesUrlOf(env, text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') as string);
  return {
    serviceName: text(env, 'OTEL_SERVICE_NAME') ?? serviceName,
    tracesUrl,
    headers: {
      ...parseKeyPairsIntoRecord(text(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
      ...parseKeyPairsIntoRecord(text(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
    },
    sampler: samplerOf(env),
  };
}
