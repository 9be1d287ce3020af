// Whether tracing is asked for, read before anything of OpenTelemetry is loaded (start.ts).

export type Environment = Readonly<Record<string, string | undefined>>;

export const text = (env: Environment, name: string) => env[name]?.trim() || undefined;

/** On when OTEL_EXPORTER_OTLP_ENDPOINT is set and OTEL_SDK_DISABLED is not true. */
export const tracingRequested = (env: Environment): boolean =>
  text(env, 'OTEL_SDK_DISABLED')?.toLowerCase() !== 'true' && text(env, 'OTEL_EXPORTER_OTLP_ENDPOINT') !== undefined;
