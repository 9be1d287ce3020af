// The developer console alone, for the split deployment: npm run console:start. Needs
// DATABASE_URL and REDIS_URL (its sessions live in Redis, shared by every console process) and
// PAIRWISE_SECRET (an app deleted or losing a user scope ends consents, and their consent.revoked
// events name each player by the app's pairwise subject); never the signing or cookie keys.
import { loadConfigOrExit, loadConfigWithoutSecrets } from '@devplat/config';
import { openListener, pageSites, warmUp } from '@devplat/http';
import {
  exitForConfiguration,
  openSharedStores,
  requireSharedStores,
  runService,
  startTelemetry,
} from '@devplat/runtime';
import { buildConsoleApp } from './app.ts';

const config = loadConfigOrExit(process.env, loadConfigWithoutSecrets);
requireSharedStores(config, 'the console');
const { pairwiseSecret } = config.secretSettings;
if (!pairwiseSecret) {
  exitForConfiguration(
    'PAIRWISE_SECRET is required by the console (the consent.revoked events of a deleted app name players by it)',
  );
}
const telemetry = startTelemetry(config, 'console');
const { logger, metrics, tracing } = telemetry;
const stores = await openSharedStores(config, telemetry);
const app = buildConsoleApp({
  config,
  prisma: stores.database.prisma,
  store: stores.store,
  pairwiseSecret,
  logger,
  metrics,
  tracing,
});
await warmUp(stores.checks, logger);
// Not openAppListener: the console traces its API and its web UI itself, each as its own app.
const listener = await openListener(
  { config },
  'console',
  app.callback(),
  app.routes,
  config.consoleUrl,
  config.ports.console,
  pageSites.console,
);
const service = await runService('console', {
  config,
  telemetry,
  checks: stores.checks,
  listeners: [listener],
  closers: stores.closers,
});
process.stdout.write(`developer console: ${listener.server.origin}, management: ${service.managementServer.origin}\n`);
