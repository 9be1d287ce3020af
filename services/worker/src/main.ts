// The webhook worker alone: npm run worker:start. Needs DATABASE_URL: the embedded PGlite lives
// inside one process and cannot be shared with the services that write the outbox.
import { loadConfigOrExit, loadConfigWithoutSecrets } from '@devplat/config';
import { createLogger, drainOnSignals, openService } from '@devplat/http';
import { createMetrics } from '@devplat/metrics';
import { openProcessDatabase, tracingClosers } from '@devplat/runtime';
import { startTracing } from '@devplat/tracing';
import { startWebhookWorker } from './worker.ts';

const config = loadConfigOrExit(process.env, loadConfigWithoutSecrets);
if (config.databaseUrl === null) {
  process.stderr.write(
    'webhook worker: DATABASE_URL is required (the embedded database cannot be shared between processes)\n',
  );
  process.exit(78); // EX_CONFIG
}
const logger = createLogger(config.logLevel, 'worker');
const metrics = createMetrics();
const tracing = loadConfigOrExit(process.env, (env) => startTracing({ serviceName: 'worker', env }));
const postgres = await openProcessDatabase(config, metrics, tracing);
const worker = startWebhookWorker({ config, prisma: postgres.database.prisma, logger, metrics, tracing });
const service = await openService({
  name: 'worker',
  config,
  logger,
  checks: postgres.checks,
  registry: metrics.registry,
  listeners: [],
  // Attempts in flight finish, or are abandoned with their leases given back, before the database closes.
  closers: [{ name: 'webhook worker', close: worker.close }, ...postgres.closers, ...tracingClosers(tracing)],
});
// Signals are handled before the ready line: a supervisor may signal the moment it reads it.
drainOnSignals(service, logger);
process.stdout.write(`Webhook worker is running, management: ${service.managementServer.origin}\n`);
