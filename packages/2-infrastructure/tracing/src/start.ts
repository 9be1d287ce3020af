// startTracing: the pass-through unless tracing is asked for; only then is OpenTelemetry loaded.
// Its SDK, exporter and API are about 300 modules, a third of what a service loads, and every
// process that never traces (production's default) paid for them at each start.
import { createRequire } from 'node:module';
import { noopTracing } from './noop.ts';
import { tracingRequested } from './switch.ts';
import type { TracingOptions } from './tracing.ts';
import type { Tracing } from './types.ts';

const require = createRequire(import.meta.url);

/**
 * Tracing per the OTEL_* variables: off (the pass-through, `enabled: false`) unless
 * OTEL_EXPORTER_OTLP_ENDPOINT is set. Throws a ConfigError (loadConfigOrExit's exit 78) when an
 * endpoint is not an http(s) URL.
 */
export function startTracing(options: TracingOptions): Tracing {
  if (!tracingRequested(options.env ?? process.env)) return noopTracing;
  const sdk = require('./tracing.ts') as typeof import('./tracing.ts');
  return sdk.startTracing(options);
}
