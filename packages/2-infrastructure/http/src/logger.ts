import type { LogLevel } from '@devplat/config';
import type { Context } from 'koa';
import { type Logger, pino } from 'pino';
import { clientClosedRequest, requestCutOff } from './request-cut-off.ts';
import { type GatheredLines, gatheredLines } from './stdout-lines.ts';

export type { Logger };

// Whatever reaches a log line, these never do.
const redact = {
  paths: [
    'req.headers.authorization',
    'req.headers.cookie',
    'res.headers["set-cookie"]',
    '*.authorization',
    '*.cookie',
    '*.password',
    '*.client_secret',
    '*.secret',
    '*.token',
    '*.access_token',
    '*.refresh_token',
    '*.code',
    '*.code_verifier',
  ],
  censor: '[redacted]',
};

/** A service's logger: each line carries `service` and `name`, both the service's name, once. */
export function createLogger(level: LogLevel, name: string, destination?: pino.DestinationStream): Logger {
  return createServiceLoggers(level, destination)(name);
}

/** stdout, one per process: every logger of it writes through it, in order (stdout-lines.ts). */
let stdout: GatheredLines | null = null;
const gatheredStdout = () => (stdout ??= gatheredLines());

/**
 * The loggers of the services one process runs (npm start), on one destination: each service's
 * lines look as they do when it runs alone. A child of a named logger would repeat its keys
 * (pino appends bindings, never replaces them), hence a root with no base bindings at all.
 */
export function createServiceLoggers(
  level: LogLevel,
  destination?: pino.DestinationStream,
): (service: string) => Logger {
  const stream = destination ?? gatheredStdout();
  const root = pino({ level, redact, base: {} }, stream);
  // The request line's own root, on the same stream, without redaction: every field of it is one
  // logRequest sets (ids, method, path, status, time, error code), none can hold a secret, and
  // redaction's wildcard paths cost more than the rest of the line (docs/decisions.md).
  if (!requestRoots.has(stream)) requestRoots.set(stream, pino({ level, base: {} }, stream));
  return (service) => root.child({ service, name: service });
}

/** Per destination stream, the root of its request lines. */
const requestRoots = new WeakMap<object, Logger>();
/** Per logger, the logger of its request lines: its bindings, level and log formatter on the request root. */
const requestLoggers = new WeakMap<Logger, Logger>();

function requestLoggerOf(logger: Logger): Logger {
  const known = requestLoggers.get(logger);
  if (known) return known;
  const own = logger as unknown as Record<symbol, unknown>;
  const root = requestRoots.get(own[pino.symbols.streamSym] as object);
  // Its log formatter too: a child may add fields to every line it writes (the admin API's operator).
  const formatters = own[pino.symbols.formattersSym] as { log: (line: object) => object };
  const made = root
    ? root.child(logger.bindings(), { level: logger.level, formatters: { log: formatters.log } })
    : logger;
  requestLoggers.set(logger, made);
  return made;
}

/** The status a request is logged and counted with: 499 once its client went away mid-request. */
export function loggedStatus(ctx: Context): number {
  return requestCutOff(ctx.req) ? clientClosedRequest : ctx.status;
}

/**
 * One line per request: method, path (never the query), status, duration, request id, and where
 * known the trace id, the app's client id and the contract's error code (a Problem's code or an
 * OAuth error), which handlers leave in ctx.state. A request whose client went away before it
 * arrived whole is `aborted`, with status 499 and no error code: whatever was answered, nobody read it.
 */
export function logRequest(logger: Logger, ctx: Context, started: number): void {
  const { requestId, traceId, clientId, errorCode } = ctx.state;
  const status = loggedStatus(ctx);
  const aborted = status === clientClosedRequest;
  requestLoggerOf(logger).info(
    {
      request_id: requestId,
      ...(traceId && { trace_id: traceId }),
      method: ctx.method,
      path: ctx.path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      ...(clientId && { client_id: clientId }),
      ...(aborted ? { aborted } : errorCode && { error: errorCode }),
    },
    'request',
  );
}
