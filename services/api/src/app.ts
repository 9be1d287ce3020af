import { type Config, wirePrefix } from '@devplat/config';
import { disabledAreas } from '@devplat/contract';
import type { PrismaClient, Query } from '@devplat/db';
import { apiApp, appObserver, featureDisabled, type Logger, operation, platformSwitch } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import type { RequestLog } from '@devplat/request-log';
import Router from '@koa/router';
import type Koa from 'koa';
import type { TokenVerifier } from './bearer.ts';
import type { Integrations } from './capabilities.ts';
import { cityRegistry } from './city-registry.ts';
import { livenessAndProfileCheck } from './liveness.ts';
import { recordApiRequests } from './request-log.ts';
import { getCapabilities, getRegions, getStatus } from './routes/metadata.ts';
import { authenticate, getCities, getMe } from './routes/protected.ts';
import type { StatusSource } from './status-source.ts';

export interface ApiDependencies {
  config: Config;
  prisma: PrismaClient;
  /** Plain SQL for the per-call liveness check. */
  query: Query;
  logger: Logger;
  statusSource: StatusSource;
  integrations: Integrations;
  /** Verifies bearer tokens; without it /cities and /me are not served (404). */
  tokens?: TokenVerifier;
  metrics?: Metrics;
  /** Where /cities and /me note each call for the app's request log; none notes nothing. */
  requestLog?: RequestLog;
}

/** The api service: the resource server of the contract under /developer/v1. */
export function buildApiApp({
  config,
  prisma,
  query,
  logger,
  statusSource,
  integrations,
  tokens,
  metrics,
  requestLog,
}: ApiDependencies): Koa {
  const router = new Router({ prefix: wirePrefix, strict: true, sensitive: true });
  operation(router, '/capabilities', { GET: getCapabilities(config, { ...integrations }) });
  operation(router, '/regions', { GET: getRegions(prisma) });
  operation(router, '/status', { GET: getStatus(config, statusSource) });
  if (tokens) {
    const on = platformSwitch(config.platformEnabled);
    const liveness = livenessAndProfileCheck(query, metrics);
    operation(router, '/cities', { GET: [...on, authenticate(liveness, tokens), getCities(cityRegistry(prisma))] });
    operation(router, '/me', { GET: [...on, authenticate(liveness, tokens, { userTokensOnly: true }), getMe()] });
  }
  featureDisabled(router, disabledAreas);
  const observe = appObserver('api', metrics, requestLog && recordApiRequests(requestLog));
  return apiApp({ logger, maxBodyBytes: 16 * 1024, observe, requestIdsFrom: config.trustedProxies }, router);
}
