// The contract mock alone: npm run mock:start (also part of npm start).
import { loadConfigOrExit, loadConfigWithoutSecrets } from '@devplat/config';
import { openAppListener } from '@devplat/http';
import { runService, startTelemetry } from '@devplat/runtime';
import { buildMockApp } from './app.ts';

const config = loadConfigOrExit(process.env, loadConfigWithoutSecrets);
const telemetry = startTelemetry(config, 'mock');
const mock = await openAppListener(
  { config, tracing: telemetry.tracing },
  'mock',
  buildMockApp(config, telemetry.logger, telemetry.metrics),
  config.mockBaseUrl,
  config.ports.mock,
);
const service = await runService('mock', { config, telemetry, checks: [], listeners: [mock], closers: [] });
process.stdout.write(
  `contract mock: ${mock.server.origin}${config.mockBaseUrl.pathname}, management: ${service.managementServer.origin}\n`,
);
