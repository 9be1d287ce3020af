// The api service alone, for the split deployment: node services/api/src/main.ts
// (pnpm api:start). Uses DATABASE_URL, or the embedded PGlite when it is unset; with REDIS_URL it
// writes each app's request log there (without, /cities and /me are not in it).

import { loadConfigOrExit, loadConfigWithoutSecrets, urlPort } from '@devplat/config';
import { type Closer, openAppListener, warmUp } from '@devplat/http';
import { flushRequestLogEvery, type RequestLog, requestLog } from '@devplat/request-log';
import { openProcessDatabase, openRedisStore, runService, startTelemetry } from '@devplat/runtime';
import { buildApiApp } from './app.ts';
import { remoteKeys, signingKeysCheck, tokenVerifier } from './bearer.ts';
import { splitIntegrations } from './capabilities.ts';
import { createStatusSource } from './status-source.ts';

const config = loadConfigOrExit(process.env, loadConfigWithoutSecrets);
const telemetry = startTelemetry(config, 'api');
const { logger, metrics, tracing } = telemetry;
const { database, checks, closers } = await openProcessDatabase(config, metrics, tracing);
const keys = remoteKeys(config, tracing.fetch);
// The request log is bookkeeping: its store is no readiness check, and an outage only drops entries.
const requestLogClosers: Closer[] = [];
let requests: RequestLog | undefined;
if (config.redisUrl) {
  const store = openRedisStore(config, config.redisUrl);
  await store.ready();
  requests = requestLog(store, config.requestLog, { log: logger.child({ part: 'request-log' }) });
  const flushing = flushRequestLogEvery(requests, config.requestLog.flushMs);
  requestLogClosers.push(
    { name: 'request log', close: () => flushing.stop() },
    { name: 'store', close: () => store.close() },
  );
}
const app = buildApiApp({
  config,
  prisma: database.prisma,
  query: database.query,
  logger,
  statusSource: createStatusSource(config.statusUrl),
  integrations: splitIntegrations,
  tokens: tokenVerifier(config, keys),
  metrics,
  requestLog: requests,
});
const port = config.port ?? (urlPort(config.baseUrl) as number);
const readiness = [...checks, signingKeysCheck(keys)];
await warmUp(readiness, logger);
const api = await openAppListener({ config, tracing }, 'public', app, config.baseUrl, port);
const service = await runService('api', {
  config,
  telemetry,
  checks: readiness,
  listeners: [api],
  closers: [...requestLogClosers, ...closers],
});
logger.info({ origin: api.server.origin, management: service.managementServer.origin }, 'api service listening');
process.stdout.write(
  `api service: ${api.server.origin}${config.baseUrl.pathname}, management: ${service.managementServer.origin}\n`,
);
