// The auth service alone, for the split deployment: npm run auth:start. Needs DATABASE_URL and
// REDIS_URL; the gateway routes /developer/v1/oauth/, /developer/v1/.well-known/ and
// /.well-known/oauth-authorization-server/developer/v1 here.
import { listenHost, loadConfigOrExit, resolveSecrets } from '@devplat/config';
import { openDatabase } from '@devplat/db';
import { createLogger, listen } from '@devplat/http';
import { redisStore } from '@devplat/kv';
import { buildAuthService } from './app.ts';

const config = loadConfigOrExit();
if (!config.databaseUrl || !config.redisUrl) {
  process.stderr.write('configuration error: the auth service alone needs DATABASE_URL and REDIS_URL\n');
  process.exit(78);
}
const logger = createLogger(config.logLevel, 'auth');
const database = await openDatabase({ databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs });
const store = redisStore(config.redisUrl, { prefix: config.redisKeyPrefix, timeoutMs: config.redisTimeoutMs });
await store.ready();
const service = buildAuthService({ config, secrets: resolveSecrets(config), prisma: database.prisma, store, logger });
const server = await listen(service.api.callback(), listenHost(config, config.baseUrl), config.port ?? 8090);
const playerPort = Number(config.playerClientUrl.port || (config.playerClientUrl.protocol === 'https:' ? 443 : 80));
const playerServer = await listen(
  service.playerClient.callback(),
  listenHost(config, config.playerClientUrl),
  playerPort,
);
const internalPort = Number(config.authInternalUrl.port || 80);
const internalServer = await listen(
  service.internal.callback(),
  listenHost(config, config.authInternalUrl),
  internalPort,
);
process.stdout.write(
  `auth service: ${server.origin}${config.baseUrl.pathname}, player client: ${playerServer.origin}\n`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await Promise.all([server.close(), playerServer.close(), internalServer.close()]);
    await store.close();
    await database.close();
    process.exit(0);
  });
}
