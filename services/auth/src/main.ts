// The auth service alone, for the split deployment: npm run auth:start. Needs DATABASE_URL and
// REDIS_URL; the gateway routes /developer/v1/oauth/, /developer/v1/.well-known/ and
// /.well-known/oauth-authorization-server/developer/v1 here.
import { loadConfigOrExit, resolveSecrets } from '@devplat/config';
import { openAppListener, pageSites, warmUp } from '@devplat/http';
import { openSharedStores, requireSharedStores, runService, startTelemetry } from '@devplat/runtime';
import { buildAuthService } from './app.ts';
import { signingKeysLoaded } from './internal.ts';

const config = loadConfigOrExit();
requireSharedStores(config, 'the auth service');
const telemetry = startTelemetry(config, 'auth');
const { logger, metrics, tracing } = telemetry;
const stores = await openSharedStores(config, telemetry);
const secrets = resolveSecrets(config);
const service = buildAuthService({
  config,
  secrets,
  prisma: stores.database.prisma,
  query: stores.database.query,
  store: stores.store,
  logger,
  metrics,
  tracing,
});
const readiness = [...stores.checks, signingKeysLoaded(secrets)];
await warmUp(readiness, logger);
const listening = { config, tracing };
const api = await openAppListener(listening, 'public', service.api, config.baseUrl, config.port ?? 8090);
const playerClient = await openAppListener(
  listening,
  'player client',
  service.playerClient,
  config.playerClientUrl,
  config.ports.playerClient,
  pageSites.playerClient,
);
const internal = await openAppListener(
  listening,
  'internal',
  service.internal,
  config.authInternalUrl,
  config.ports.authInternal,
);
const running = await runService('auth', {
  config,
  telemetry,
  checks: readiness,
  listeners: [api, playerClient, internal],
  // The usage bookkeeping's last flush needs both stores: before they close.
  closers: [...service.closers, ...stores.closers],
});
process.stdout.write(
  `auth service: ${api.server.origin}${config.baseUrl.pathname}, player client: ${playerClient.server.origin}, ` +
    `internal: ${internal.server.origin}, management: ${running.managementServer.origin}\n`,
);
