// The auth service alone, for the split deployment: npm run auth:start. Needs DATABASE_URL and
// REDIS_URL; the gateway routes /developer/v1/oauth/, /developer/v1/.well-known/ and
// /.well-known/oauth-authorization-server/developer/v1 here.
import { listenHost, loadConfigOrExit, resolveSecrets } from '@devplat/config';
import { createLogger, drainOnSignals, listen, openService, pageSites, warmUp, withTracing } from '@devplat/http';
import { createMetrics } from '@devplat/metrics';
import { openProcessDatabase, openProcessStore, tracingClosers } from '@devplat/runtime';
import { startTracing } from '@devplat/tracing';
import { buildAuthService } from './app.ts';
import { signingKeysLoaded } from './internal.ts';

const config = loadConfigOrExit();
if (!config.databaseUrl || !config.redisUrl) {
  process.stderr.write('configuration error: the auth service alone needs DATABASE_URL and REDIS_URL\n');
  process.exit(78);
}
const logger = createLogger(config.logLevel, 'auth');
const metrics = createMetrics();
const tracing = loadConfigOrExit(process.env, (env) => startTracing({ serviceName: 'auth', env }));
const postgres = await openProcessDatabase(config, metrics, tracing);
const redis = await openProcessStore(config, metrics, tracing);
const secrets = resolveSecrets(config);
const service = buildAuthService({
  config,
  secrets,
  prisma: postgres.database.prisma,
  query: postgres.database.query,
  store: redis.store,
  logger,
  metrics,
  tracing,
});
const readiness = [...postgres.checks, ...redis.checks, signingKeysLoaded(secrets)];
await warmUp(readiness, logger);
const server = await listen(
  withTracing(service.api, tracing).callback(),
  listenHost(config, config.baseUrl),
  config.port ?? 8090,
);
const playerServer = await listen(
  withTracing(service.playerClient, tracing).callback(),
  listenHost(config, config.playerClientUrl),
  config.ports.playerClient,
  pageSites.playerClient,
);
const internalServer = await listen(
  withTracing(service.internal, tracing).callback(),
  listenHost(config, config.authInternalUrl),
  config.ports.authInternal,
);
const running = await openService({
  name: 'auth',
  config,
  logger,
  checks: readiness,
  registry: metrics.registry,
  listeners: [
    { name: 'public', server },
    { name: 'player client', server: playerServer },
    { name: 'internal', server: internalServer },
  ],
  // The usage bookkeeping's last flush needs both stores: before they close.
  closers: [...service.closers, ...redis.closers, ...postgres.closers, ...tracingClosers(tracing)],
});
// Signals are handled before the ready line: a supervisor may signal the moment it reads it.
drainOnSignals(running, logger);
process.stdout.write(
  `auth service: ${server.origin}${config.baseUrl.pathname}, player client: ${playerServer.origin}, ` +
    `internal: ${internalServer.origin}, management: ${running.managementServer.origin}\n`,
);
