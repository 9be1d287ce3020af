// The whole platform in one process on embedded defaults: the newcomer's `npm start`.
// It composes the services' own builders; production runs them split (see infra/).
import type { IncomingMessage, RequestListener } from 'node:http';
import { openAdminListener } from '@devplat/admin/api';
import {
  buildApiApp,
  createStatusSource,
  remoteKeys,
  signingKeysCheck,
  splitIntegrations,
  tokenVerifier,
} from '@devplat/api';
import { authPaths, buildAuthService, signingKeysLoaded } from '@devplat/auth';
import { type Config, resolveSecrets, urlPort } from '@devplat/config';
import { buildConsoleApp } from '@devplat/console';
import type { Database } from '@devplat/db';
import {
  type Closer,
  createServiceLoggers,
  type NamedListener,
  openAppListener,
  openListener,
  openService,
  pageSites,
  type RunningService,
  routesOf,
  withTracing,
} from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import { createMetrics, type Metrics } from '@devplat/metrics';
import { buildMockApp } from '@devplat/mock';
import { openProcessDatabase, openProcessStore, tracingClosers, type Watched, watchDatabase } from '@devplat/runtime';
import { noopTracing, type Tracing } from '@devplat/tracing';
import { startWebhookWorker } from '@devplat/worker';

export interface RunningPlatform {
  /** What a person opens, by name. */
  urls: Record<string, string>;
  database: Database;
  store: KeyValueStore;
  metrics: Metrics;
  /** The management listener and the drain. */
  service: RunningService;
  /** Each public listener: its name, its server (origin) and the routes its apps answer. */
  listeners: readonly NamedListener[];
  /** Drains at once (no SHUTDOWN_DELAY_MS) and closes everything. */
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

export interface StartOptions {
  /** An open database to use (tests): the platform does not close it. */
  database?: Database;
  /** Run the webhook worker in this process (default); tests of the worker start their own. */
  webhookWorker?: boolean;
  /** The process's tracing (startTracing); off by default. */
  tracing?: Tracing;
  /** Where the log lines go (tests read them); standard output by default. */
  logDestination?: Parameters<typeof createServiceLoggers>[1];
}

export async function startPlatform(config: Config, options: StartOptions = {}): Promise<RunningPlatform> {
  // Each service logs as it does alone: {"service":"api","name":"api"}, the keys once.
  const loggerFor = createServiceLoggers(config.logLevel, options.logDestination);
  const logger = loggerFor('platform');
  const metrics = createMetrics();
  const tracing = options.tracing ?? noopTracing;
  const postgres: Watched & { database: Database } = options.database
    ? { database: options.database, ...watchDatabase(options.database, metrics, false) }
    : await openProcessDatabase(config, metrics, tracing);
  const { database } = postgres;
  const redis = await openProcessStore(config, metrics, tracing);
  const { store } = redis;
  const listeners: NamedListener[] = [];
  const worker =
    options.webhookWorker === false
      ? null
      : startWebhookWorker({
          config,
          prisma: database.prisma,
          logger: loggerFor('worker'),
          metrics,
          tracing,
        });
  const closers: Closer[] = [
    ...(worker ? [{ name: 'webhook worker', close: worker.close }] : []),
    ...redis.closers,
    ...postgres.closers,
    ...tracingClosers(tracing),
  ];
  const closeAll = async () => {
    await Promise.all(listeners.map(({ server }) => server.close()));
    for (const closer of closers) await closer.close(1_000);
  };
  const secrets = resolveSecrets(config);
  const keys = remoteKeys(config, tracing.fetch);
  let service: RunningService;
  let adminUrl: string | null = null;
  try {
    const auth = buildAuthService({
      config,
      secrets,
      prisma: database.prisma,
      query: database.query,
      store,
      logger: loggerFor('auth'),
      metrics,
      tracing,
    });
    // Its usage bookkeeping and the request log flush once more on the drain, before the stores close.
    closers.unshift(...auth.closers);
    const api = buildApiApp({
      config,
      prisma: database.prisma,
      query: database.query,
      logger: loggerFor('api'),
      statusSource: createStatusSource(config.statusUrl),
      integrations: { ...splitIntegrations, consentWebhooks: worker !== null },
      tokens: tokenVerifier(config, keys),
      metrics,
      // One request log in this process: auth's, which the api's calls join.
      requestLog: auth.requestLog,
    });
    const listening = { config, tracing };
    listeners.push(
      await openListener(
        listening,
        'public',
        gateway(withTracing(auth.api, tracing).callback(), withTracing(api, tracing).callback()),
        routesOf(auth.api, api),
        config.baseUrl,
        config.port ?? (urlPort(config.baseUrl) as number),
      ),
    );
    listeners.push(
      await openAppListener(
        listening,
        'player client',
        auth.playerClient,
        config.playerClientUrl,
        config.ports.playerClient,
        pageSites.playerClient,
      ),
    );
    listeners.push(
      await openAppListener(listening, 'internal', auth.internal, config.authInternalUrl, config.ports.authInternal),
    );
    const mock = buildMockApp(config, loggerFor('mock'), metrics);
    listeners.push(await openAppListener(listening, 'mock', mock, config.mockBaseUrl, config.ports.mock));
    const developerConsole = buildConsoleApp({
      pairwiseSecret: secrets.pairwiseSecret,
      config,
      prisma: database.prisma,
      store,
      logger: loggerFor('console'),
      metrics,
      tracing,
    });
    listeners.push(
      await openListener(
        listening,
        'console',
        developerConsole.callback(),
        developerConsole.routes,
        config.consoleUrl,
        config.ports.console,
        pageSites.console,
      ),
    );
    // The operators' admin API on ADMIN_HOST:ADMIN_PORT (loopback), only where ADMIN_TOKENS_FILE is
    // set: without it no token could work, and every platform (each test's) would take the one port.
    if (config.admin.tokensFile !== null) {
      const admin = await openAdminListener({
        config,
        tokensFile: config.admin.tokensFile,
        prisma: database.prisma,
        // The platform's own: the consent.revoked events of the consents an operator ends.
        pairwiseSecret: secrets.pairwiseSecret,
        store,
        logger: loggerFor('admin'),
        metrics,
        tracing,
      });
      listeners.push(admin.listener);
      closers.unshift(admin.closer);
      adminUrl = admin.url;
    }
    service = await openService({
      name: 'platform',
      config,
      logger,
      checks: [...postgres.checks, ...redis.checks, signingKeysLoaded(secrets), signingKeysCheck(keys)],
      registry: metrics.registry,
      listeners,
      closers,
    });
  } catch (error) {
    await closeAll();
    throw error;
  }
  const origin = (name: string) => listeners.find((listener) => listener.name === name)?.server.origin as string;
  return {
    urls: {
      'Public API': `${origin('public')}${config.baseUrl.pathname}`,
      'Player client': origin('player client'),
      Console: origin('console'),
      'Internal JWKS': `${origin('internal')}/jwks.json`,
      'Contract mock': `${origin('mock')}${config.mockBaseUrl.pathname}`,
      ...(adminUrl && { 'Admin API': adminUrl }),
      Management: service.managementServer.origin,
    },
    database,
    store,
    metrics,
    service,
    listeners,
    close: async () => {
      await service.drain({ delay: false });
    },
  };
}
