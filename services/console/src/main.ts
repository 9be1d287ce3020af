// The developer console alone, for the split deployment: npm run console:start. Needs
// DATABASE_URL and REDIS_URL (its sessions live in Redis, shared by every console process) and
// PAIRWISE_SECRET (an app deleted or losing a user scope ends consents, and their consent.revoked
// events name each player by the app's pairwise subject); never the signing or cookie keys.
import { listenHost, loadConfigOrExit, loadConfigWithoutSecrets } from '@devplat/config';
import { createLogger, drainOnSignals, listen, openService, pageSites, warmUp } from '@devplat/http';
import { createMetrics } from '@devplat/metrics';
import { openProcessDatabase, openProcessStore, tracingClosers } from '@devplat/runtime';
import { startTracing } from '@devplat/tracing';
import { buildConsoleApp } from './app.ts';

const config = loadConfigOrExit(process.env, loadConfigWithoutSecrets);
if (!config.databaseUrl || !config.redisUrl) {
  process.stderr.write('configuration error: the console alone needs DATABASE_URL and REDIS_URL\n');
  process.exit(78);
}
const { pairwiseSecret } = config.secretSettings;
if (!pairwiseSecret) {
  process.stderr.write(
    'configuration error: PAIRWISE_SECRET is required by the console (the consent.revoked events of a deleted app name players by it)\n',
  );
  process.exit(78);
}
const logger = createLogger(config.logLevel, 'console');
const metrics = createMetrics();
const tracing = loadConfigOrExit(process.env, (env) => startTracing({ serviceName: 'console', env }));
const postgres = await openProcessDatabase(config, metrics, tracing);
const redis = await openProcessStore(config, metrics, tracing);
const app = buildConsoleApp({
  config,
  prisma: postgres.database.prisma,
  store: redis.store,
  pairwiseSecret,
  logger,
  metrics,
  tracing,
});
const readiness = [...postgres.checks, ...redis.checks];
await warmUp(readiness, logger);
const server = await listen(
  app.callback(),
  listenHost(config, config.consoleUrl),
  config.ports.console,
  pageSites.console,
);
const service = await openService({
  name: 'console',
  config,
  logger,
  checks: readiness,
  registry: metrics.registry,
  listeners: [{ name: 'console', server }],
  closers: [...redis.closers, ...postgres.closers, ...tracingClosers(tracing)],
});
// Signals are handled before the ready line: a supervisor may signal the moment it reads it.
drainOnSignals(service, logger);
process.stdout.write(`developer console: ${server.origin}, management: ${service.managementServer.origin}\n`);
