// The contract mock alone: npm run mock:start (also part of npm start).
import { listenHost, loadConfigOrExit } from '@devplat/config';
import { createLogger, listen } from '@devplat/http';
import { buildMockApp } from './app.ts';

const config = loadConfigOrExit();
const port = config.port ?? Number(config.mockBaseUrl.port || 80);
const server = await listen(
  buildMockApp(config, createLogger(config.logLevel, 'mock')).callback(),
  listenHost(config, config.mockBaseUrl),
  port,
);
process.stdout.write(`contract mock: ${server.origin}${config.mockBaseUrl.pathname}\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    await server.close();
    process.exit(0);
  });
}
