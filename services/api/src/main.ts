// The api service alone, for the split deployment: node services/api/src/main.ts
// (pnpm api:start). Uses DATABASE_URL, or the embedded PGlite when it is unset.
import { listenHost, loadConfigOrExit } from '@devplat/config';
import { openDatabase, prepareEmbeddedDatabase } from '@devplat/db';
import { createLogger, listen } from '@devplat/http';
import { buildApiApp } from './app.ts';
import { remoteKeys, tokenVerifier } from './bearer.ts';
import { noIntegrations } from './capabilities.ts';
import { createStatusSource } from './status-source.ts';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, 'api');
const database = config.databaseUrl
  ? await openDatabase({ databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs })
  : await prepareEmbeddedDatabase(config.dataDir);
const app = buildApiApp({
  config,
  prisma: database.prisma,
  query: database.query,
  logger,
  statusSource: createStatusSource(config.statusUrl),
  // Split deployment: the auth service issues the tokens; its JWKS is at AUTH_INTERNAL_URL.
  integrations: { ...noIntegrations, oauth: true, cityRegistry: true, playerProfile: true },
  tokens: tokenVerifier(config, remoteKeys(config)),
});
const port = config.port ?? Number(config.baseUrl.port || (config.baseUrl.protocol === 'https:' ? 443 : 80));
const server = await listen(app.callback(), listenHost(config, config.baseUrl), port);
logger.info({ origin: server.origin }, 'api service listening');
process.stdout.write(`api service: ${server.origin}${config.baseUrl.pathname}\n`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await server.close();
    await database.close();
    process.exit(0);
  });
}
