// The console's JSON API as its own app on the API stack: every request whose path is /api or
// below it, paths whole. Sandbox only: switched off, every path answers 503 FEATURE_DISABLED.
import { apiApp, type Logger, ProblemError } from '@devplat/http';
import type Koa from 'koa';
import type { Middleware } from 'koa';
import type { ConsoleDomain } from '../domain/index.ts';
import { consoleApiRouter } from './routes.ts';

export const consoleDisabledDetail = 'The developer console is sandbox only and is switched off in this environment.';

const switchedOff: Middleware = () => {
  throw new ProblemError('FEATURE_DISABLED', consoleDisabledDetail);
};

export function buildConsoleApi(domain: ConsoleDomain, logger: Logger, enabled: boolean): Koa {
  return apiApp({ logger }, enabled ? consoleApiRouter(domain) : switchedOff);
}
