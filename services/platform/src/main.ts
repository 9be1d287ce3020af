// npm start: the whole platform in one process, on embedded defaults unless DATABASE_URL is set.
import { loadConfigOrExit } from '@devplat/config';
import { createLogger, drainOnSignals } from '@devplat/http';
import { startTracing } from '@devplat/tracing';
import { startPlatform } from './start.ts';
import { startFailureMessage } from './start-failure.ts';

const config = loadConfigOrExit();
const tracing = loadConfigOrExit(process.env, (env) => startTracing({ serviceName: 'platform', env }));
const started = performance.now();
let platform: Awaited<ReturnType<typeof startPlatform>>;
try {
  platform = await startPlatform(config, { tracing });
} catch (error) {
  process.stderr.write(`the platform could not start: ${startFailureMessage(error, config)}\n`);
  process.exit(1);
}
const lines = Object.entries(platform.urls).map(([name, url]) => `  ${name.padEnd(14)} ${url}`);
if (config.admin.tokensFile === null) lines.push(`  ${'Admin API'.padEnd(14)} off: set ADMIN_TOKENS_FILE to serve it`);
// Signals are handled before the ready line: a supervisor may signal the moment it reads it.
drainOnSignals(platform.service, createLogger(config.logLevel, 'platform'));
process.stdout.write(
  `Developer Platform is ready in ${Math.round(performance.now() - started)} ms ` +
    `(${config.environment}, ${platform.database.kind}${config.databaseUrl ? '' : ` in ${config.dataDir}`}):\n` +
    `${lines.join('\n')}\nPress Ctrl-C to stop.\n`,
);
