// The developer console alone, for the split deployment: npm run console:start. Needs
// DATABASE_URL and REDIS_URL (its sessions live in Redis, shared by every console process).
import { listenHost, loadConfigOrExit } from '@devplat/config';
import { openDatabase } from '@devplat/db';
import { createLogger, listen } from '@devplat/http';
import { redisStore } from '@devplat/kv';
import { buildConsoleApp } from './app.ts';

const config = loadConfigOrExit();
if (!config.databaseUrl || !config.redisUrl) {
  process.stderr.write('configuration error: the console alone needs DATABASE_URL and REDIS_URL\n');
  process.exit(78);
}
const logger = createLogger(config.logLevel, 'console');
const database = await openDatabase({ databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs });
const store = redisStore(config.redisUrl, { prefix: config.redisKeyPrefix, timeoutMs: config.redisTimeoutMs });
await store.ready();
const app = buildConsoleApp({ config, prisma: database.prisma, store, logger });
const port = config.port ?? Number(config.consoleUrl.port || (config.consoleUrl.protocol === 'https:' ? 443 : 80));
const server = await listen(app.callback(), listenHost(config, config.consoleUrl), port);
process.stdout.write(`developer console: ${server.origin}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await server.close();
    await store.close();
    await database.close();
    process.exit(0);
  });
}
