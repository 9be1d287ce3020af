// The console's JSON API as its own app on the API stack: every request whose path is /api or
// below it, paths whole. Sandbox only: switched off, every path answers 503 FEATURE_DISABLED.
import { apiApp, type Logger } from '@devplat/http';
import type Koa from 'koa';
import type { ConsoleDomain } from '../domain/index.ts';
import { refusalsAsProblems, switchedOff } from '../doors.ts';
import { consoleApiRouter } from './routes.ts';

export interface ConsoleApiOptions {
  enabled: boolean;
  /** Behind a TLS-terminating gateway: X-Forwarded-* trusted (the client address the throttle counts). */
  proxy: boolean;
}

export function buildConsoleApi(domain: ConsoleDomain, logger: Logger, { enabled, proxy }: ConsoleApiOptions): Koa {
  return apiApp({ logger, proxy }, ...(enabled ? [refusalsAsProblems, consoleApiRouter(domain)] : [switchedOff]));
}
