// The webhook worker alone: npm run worker:start. Needs DATABASE_URL: the embedded PGlite lives
// inside one process and cannot be shared with the services that write the outbox.
import { loadConfigOrExit, loadConfigWithoutSecrets } from '@devplat/config';
import { openProcessDatabase, runService, startTelemetry } from '@devplat/runtime';
import { startWebhookWorker } from './worker.ts';

const config = loadConfigOrExit(process.env, loadConfigWithoutSecrets);
if (config.databaseUrl === null) {
  process.stderr.write(
    'webhook worker: DATABASE_URL is required (the embedded database cannot be shared between processes)\n',
  );
  process.exit(78); // EX_CONFIG
}
const telemetry = startTelemetry(config, 'worker');
const { logger, metrics, tracing } = telemetry;
const postgres = await openProcessDatabase(config, metrics, tracing);
const worker = startWebhookWorker({ config, prisma: postgres.database.prisma, logger, metrics, tracing });
const service = await runService('worker', {
  config,
  telemetry,
  checks: postgres.checks,
  listeners: [],
  // Attempts in flight finish, or are abandoned with their leases given back, before the database closes.
  closers: [{ name: 'webhook worker', close: worker.close }, ...postgres.closers],
});
process.stdout.write(`Webhook worker is running, management: ${service.managementServer.origin}\n`);
