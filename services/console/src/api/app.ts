// The console's JSON API as its own app on the API stack: every request whose path is /api or
// below it, paths whole. Sandbox only: switched off, every path answers 503 FEATURE_DISABLED.
import { apiApp, type ForwardedTrust, type Logger, requestObserver } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import type Koa from 'koa';
import type { ConsoleDomain } from '../console-domain.ts';
import { refusalsAsProblems, switchedOff } from '../doors.ts';
import { consoleApiRouter } from './routes.ts';

export interface ConsoleApiOptions {
  enabled: boolean;
  /** Whose X-Forwarded-* to believe (the client address the throttle counts). */
  forwarded: ForwardedTrust;
  metrics?: Metrics;
}

export function buildConsoleApi(
  domain: ConsoleDomain,
  logger: Logger,
  { enabled, forwarded, metrics }: ConsoleApiOptions,
): Koa {
  const observe = metrics && requestObserver(metrics, 'console-api');
  return apiApp(
    { logger, forwarded, observe },
    ...(enabled ? [refusalsAsProblems, consoleApiRouter(domain, logger)] : [switchedOff]),
  );
}
