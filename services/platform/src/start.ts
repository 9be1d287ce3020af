// The whole platform in one process on embedded defaults: the newcomer's `npm start`.
// It composes the services' own builders; production runs them split (see infra/).
import type { IncomingMessage, RequestListener } from 'node:http';
import { buildApiApp, createStatusSource, noIntegrations, remoteKeys, tokenVerifier } from '@devplat/api';
import { authPaths, buildAuthService } from '@devplat/auth';
import { type Config, listenHost, resolveSecrets } from '@devplat/config';
import { buildConsoleApp } from '@devplat/console';
import { type Database, openDatabase, prepareEmbeddedDatabase } from '@devplat/db';
import { createLogger, listen, type RunningServer } from '@devplat/http';
import { type KeyValueStore, memoryStore, redisStore } from '@devplat/kv';
import { buildMockApp } from '@devplat/mock';
import { startWebhookWorker } from '@devplat/worker';

export interface RunningPlatform {
  /** What a person opens, by name. */
  urls: Record<string, string>;
  database: Database;
  store: KeyValueStore;
  close(): Promise<void>;
}

/** {base_url}'s gateway: the auth service's paths to it, everything else to the api service. */
function gateway(auth: RequestListener, api: RequestListener): RequestListener {
  const isAuthPath = (request: IncomingMessage) => {
    const path = (request.url ?? '/').split('?')[0] as string;
    return authPaths.some((prefix) => path.startsWith(prefix));
  };
  return (request, response) => (isAuthPath(request) ? auth : api)(request, response);
}

function portOf(url: URL): number {
  return Number(url.port || (url.protocol === 'https:' ? 443 : 80));
}

export interface StartOptions {
  /** An open database to use (tests); otherwise DATABASE_URL or the embedded one. */
  database?: Database;
  /** Run the webhook worker in this process (default); tests of the worker start their own. */
  webhookWorker?: boolean;
}

export async function startPlatform(config: Config, options: StartOptions = {}): Promise<RunningPlatform> {
  const logger = createLogger(config.logLevel, 'platform');
  const database =
    options.database ??
    (config.databaseUrl
      ? await openDatabase({ databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs })
      : await prepareEmbeddedDatabase(config.dataDir));
  // Without REDIS_URL the store lives in this process: correct only because it is the only one.
  const store = config.redisUrl
    ? redisStore(config.redisUrl, { prefix: config.redisKeyPrefix, timeoutMs: config.redisTimeoutMs })
    : memoryStore();
  await store.ready();
  const servers: RunningServer[] = [];
  const worker =
    options.webhookWorker === false
      ? null
      : startWebhookWorker({ config, prisma: database.prisma, logger: logger.child({ service: 'worker' }) });
  const close = async () => {
    await worker?.stop();
    await Promise.all(servers.map((server) => server.close()));
    await store.close();
    if (!options.database) await database.close();
  };
  try {
    const api = buildApiApp({
      config,
      prisma: database.prisma,
      query: database.query,
      logger: logger.child({ service: 'api' }),
      statusSource: createStatusSource(config.statusUrl),
      integrations: {
        ...noIntegrations,
        oauth: true,
        cityRegistry: true,
        playerProfile: true,
        consentWebhooks: worker !== null,
        developerConsole: true,
      },
      tokens: tokenVerifier(config, remoteKeys(config)),
    });
    const auth = buildAuthService({
      config,
      secrets: resolveSecrets(config),
      prisma: database.prisma,
      store,
      logger: logger.child({ service: 'auth' }),
    });
    const publicApi = gateway(auth.api.callback(), api.callback());
    servers.push(await listen(publicApi, listenHost(config, config.baseUrl), config.port ?? portOf(config.baseUrl)));
    servers.push(
      await listen(
        auth.playerClient.callback(),
        listenHost(config, config.playerClientUrl),
        portOf(config.playerClientUrl),
      ),
    );
    servers.push(
      await listen(
        auth.internal.callback(),
        listenHost(config, config.authInternalUrl),
        portOf(config.authInternalUrl),
      ),
    );
    servers.push(
      await listen(
        buildMockApp(config, logger.child({ service: 'mock' })).callback(),
        listenHost(config, config.mockBaseUrl),
        portOf(config.mockBaseUrl),
      ),
    );
    const developerConsole = buildConsoleApp({
      config,
      prisma: database.prisma,
      store,
      logger: logger.child({ service: 'console' }),
    });
    servers.push(
      await listen(developerConsole.callback(), listenHost(config, config.consoleUrl), portOf(config.consoleUrl)),
    );
  } catch (error) {
    await close();
    throw error;
  }
  const [publicServer, playerServer, internalServer, mockServer, consoleServer] = servers as RunningServer[] as [
    RunningServer,
    RunningServer,
    RunningServer,
    RunningServer,
    RunningServer,
  ];
  return {
    urls: {
      'Public API': `${publicServer.origin}${config.baseUrl.pathname}`,
      'Player client': playerServer.origin,
      Console: consoleServer.origin,
      'Internal JWKS': `${internalServer.origin}/jwks.json`,
      'Contract mock': `${mockServer.origin}${config.mockBaseUrl.pathname}`,
    },
    database,
    store,
    close,
  };
}
