// A drain leaves no timer behind: the platform drains inside a test's process (and the one-process
// platform's Ctrl-C), which must then end by itself rather than wait out SHUTDOWN_TIMEOUT_MS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '@devplat/config';
import { createMetrics } from '@devplat/metrics';
import { createLogger, listen, openService } from '../src/index.ts';

const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

test('once drained, no timer of the drain keeps the process alive', async () => {
  const before = timers();
  const server = await listen((_, response) => response.end('ok'), '127.0.0.1', 0);
  const service = await openService({
    name: 'api',
    config: loadConfig({ MANAGEMENT_PORT: '0', SHUTDOWN_DELAY_MS: '0', SHUTDOWN_TIMEOUT_MS: '60000' }),
    logger: createLogger('silent', 'test'),
    checks: [],
    registry: createMetrics().registry,
    listeners: [{ name: 'public', server }],
    closers: [
      { name: 'store', close: async () => {} },
      { name: 'database', close: async () => {} },
    ],
  });
  assert.deepEqual(await service.drain(), { cut: [] });
  assert.equal(timers(), before);
});
