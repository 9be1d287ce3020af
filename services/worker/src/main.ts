// The webhook worker alone: npm run worker:start. Needs DATABASE_URL: the embedded PGlite lives
// inside one process and cannot be shared with the services that write the outbox.
import { loadConfigOrExit } from '@devplat/config';
import { openDatabase } from '@devplat/db';
import { createLogger } from '@devplat/http';
import { startWebhookWorker } from './worker.ts';

const config = loadConfigOrExit();
if (config.databaseUrl === null) {
  process.stderr.write(
    'webhook worker: DATABASE_URL is required (the embedded database cannot be shared between processes)\n',
  );
  process.exit(78); // EX_CONFIG
}
const logger = createLogger(config.logLevel, 'worker');
const database = await openDatabase({ databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs });
const worker = startWebhookWorker({ config, prisma: database.prisma, logger });
process.stdout.write('Webhook worker is running\n');

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await worker.stop();
    await database.close();
    process.exit(0);
  });
}
