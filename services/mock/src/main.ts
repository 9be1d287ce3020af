// The contract mock alone: npm run mock:start (also part of npm start).
import { listenHost, loadConfigOrExit } from '@devplat/config';
import { createLogger, drainOnSignals, listen, openService } from '@devplat/http';
import { createMetrics } from '@devplat/metrics';
import { buildMockApp } from './app.ts';

const config = loadConfigOrExit();
const logger = createLogger(config.logLevel, 'mock');
const metrics = createMetrics();
const server = await listen(
  buildMockApp(config, logger, metrics).callback(),
  listenHost(config, config.mockBaseUrl),
  config.ports.mock,
);
const service = await openService({
  name: 'mock',
  config,
  logger,
  checks: [],
  registry: metrics.registry,
  listeners: [{ name: 'mock', server }],
  closers: [],
});
process.stdout.write(
  `contract mock: ${server.origin}${config.mockBaseUrl.pathname}, management: ${service.managementServer.origin}\n`,
);
drainOnSignals(service, logger);
