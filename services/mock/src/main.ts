// The contract mock alone: npm run mock:start (also part of npm start).
import { listenHost, loadConfigOrExit, loadConfigWithoutSecrets } from '@devplat/config';
import { createLogger, drainOnSignals, listen, openService, withTracing } from '@devplat/http';
import { createMetrics } from '@devplat/metrics';
import { tracingClosers } from '@devplat/runtime';
import { startTracing } from '@devplat/tracing';
import { buildMockApp } from './app.ts';

const config = loadConfigOrExit(process.env, loadConfigWithoutSecrets);
const logger = createLogger(config.logLevel, 'mock');
const metrics = createMetrics();
const tracing = loadConfigOrExit(process.env, (env) => startTracing({ serviceName: 'mock', env }));
const server = await listen(
  withTracing(buildMockApp(config, logger, metrics), tracing).callback(),
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
  closers: tracingClosers(tracing),
});
// Signals are handled before the ready line: a supervisor may signal the moment it reads it.
drainOnSignals(service, logger);
process.stdout.write(
  `contract mock: ${server.origin}${config.mockBaseUrl.pathname}, management: ${service.managementServer.origin}\n`,
);
