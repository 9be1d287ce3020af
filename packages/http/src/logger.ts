import type { LogLevel } from '@devplat/config';
import type { Context } from 'koa';
import { type Logger, pino } from 'pino';

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

export function createLogger(level: LogLevel, name: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, name, redact, base: { service: name } }, destination);
}

/**
 * One line per request: method, path (never the query), status, duration, request id, and where
 * known the trace id, the app's client id and the contract's error code (a Problem's code or an
 * OAuth error), which handlers leave in ctx.state.
 */
export function logRequest(logger: Logger, ctx: Context, started: number): void {
  const { requestId, traceId, clientId, errorCode } = ctx.state;
  logger.info(
    {
      request_id: requestId,
      ...(traceId && { trace_id: traceId }),
      method: ctx.method,
      path: ctx.path,
      status: ctx.status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      ...(clientId && { client_id: clientId }),
      ...(errorCode && { error: errorCode }),
    },
    'request',
  );
}
