import { type Config, wirePrefix } from '@devplat/config';
import { disabledAreas } from '@devplat/contract';
import type { PrismaClient, Query } from '@devplat/db';
import { apiEnvelope, featureDisabled, type Logger, notFound, operation, platformSwitch } from '@devplat/http';
import Router from '@koa/router';
import Koa from 'koa';
import type { TokenVerifier } from './bearer.ts';
import type { Integrations } from './capabilities.ts';
import { cityRegistry } from './city-registry.ts';
import { livenessCheck } from './liveness.ts';
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
}: ApiDependencies): Koa {
  const app = new Koa();
  app.silent = true;
  const router = new Router({ prefix: wirePrefix, strict: true, sensitive: true });
  operation(router, 'GET', '/capabilities', getCapabilities(config, { ...integrations }));
  operation(router, 'GET', '/regions', getRegions(prisma));
  operation(router, 'GET', '/status', getStatus(config, statusSource));
  if (tokens) {
    const on = platformSwitch(config.platformEnabled);
    const liveness = livenessCheck(query);
    operation(router, 'GET', '/cities', ...on, authenticate(liveness, tokens), getCities(cityRegistry(prisma)));
    operation(router, 'GET', '/me', ...on, authenticate(liveness, tokens, { userTokensOnly: true }), getMe());
  }
  featureDisabled(router, disabledAreas);

  app.use(apiEnvelope(logger, { maxBodyBytes: 16 * 1024 }));
  app.use(router.routes());
  app.use(notFound());
  return app;
}
