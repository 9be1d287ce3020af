// The admin API alone, as its own process: npm run admin:serve, or the image's `admin-api`.
// Needs DATABASE_URL and REDIS_URL (an account's suspension is told to every process's app cache
// through Redis) and ADMIN_TOKENS_FILE (the operators' token hashes). Signs and keys nothing; of
// the shared secrets it reads PAIRWISE_SECRET (or _FILE) alone, as the admin command does, for the
// consent.revoked events of the consents it ends: without it the three consent routes answer 503
// and the rest works (said once at start). Listens on ADMIN_HOST:ADMIN_PORT (loopback by default),
// never behind the gateway; its management listener (/livez, /readyz, /metrics) is on
// MANAGEMENT_PORT (9086).
import { loadConfig, loadConfigOrExit, loadConfigWithoutSecrets } from '@devplat/config';
import { createLogger, drainOnSignals, openService } from '@devplat/http';
import { createMetrics } from '@devplat/metrics';
import { openProcessDatabase, openProcessStore, tracingClosers } from '@devplat/runtime';
import { startTracing } from '@devplat/tracing';
import { openAdminListener } from './api/index.ts';

const config = loadConfigOrExit(process.env, loadConfigWithoutSecrets);
const missing = [
  ...(config.databaseUrl ? [] : ['DATABASE_URL (the embedded database cannot be shared between processes)']),
  ...(config.redisUrl ? [] : ["REDIS_URL (a suspension must reach every process's app cache)"]),
  ...(config.admin.tokensFile ? [] : ['ADMIN_TOKENS_FILE (the operator tokens: admin create-token says how)']),
];
if (missing.length > 0) {
  process.stderr.write(`configuration error: the admin API needs ${missing.join(', and ')}\n`);
  process.exit(78); // EX_CONFIG
}
// Only these two variables, checked as the services check them (a malformed one: exit 78).
const pairwiseSecret = loadConfigOrExit(
  { PAIRWISE_SECRET: process.env.PAIRWISE_SECRET, PAIRWISE_SECRET_FILE: process.env.PAIRWISE_SECRET_FILE },
  (env) => loadConfig(env, { requireSharedSecrets: false }).secretSettings.pairwiseSecret,
);
const logger = createLogger(config.logLevel, 'admin');
if (pairwiseSecret === null) {
  logger.warn(
    'admin API: PAIRWISE_SECRET is not set: the consent routes (…/consents/end) answer 503 until the process is started with it',
  );
}
const metrics = createMetrics();
const tracing = loadConfigOrExit(process.env, (env) => startTracing({ serviceName: 'admin', env }));
const postgres = await openProcessDatabase(config, metrics, tracing);
const redis = await openProcessStore(config, metrics, tracing);
const admin = await openAdminListener({
  config,
  tokensFile: config.admin.tokensFile as string,
  prisma: postgres.database.prisma,
  pairwiseSecret,
  store: redis.store,
  logger,
  metrics,
  tracing,
});
const service = await openService({
  name: 'admin',
  config,
  logger,
  checks: [...postgres.checks, ...redis.checks],
  registry: metrics.registry,
  listeners: [admin.listener],
  closers: [admin.closer, ...redis.closers, ...postgres.closers, ...tracingClosers(tracing)],
});
// Signals are handled before the ready line: a supervisor may signal the moment it reads it.
drainOnSignals(service, logger);
process.stdout.write(`admin API: ${admin.url}, management: ${service.managementServer.origin}\n`);
