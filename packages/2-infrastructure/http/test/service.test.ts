// A process's drain: readiness says draining at once, the listeners stop after SHUTDOWN_DELAY_MS,
// then the closers run in order; past SHUTDOWN_TIMEOUT_MS it stops waiting and says what it cut.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadConfig } from '@devplat/config';
import { createMetrics } from '@devplat/metrics';
import { createLogger, listen, openService } from '../src/index.ts';

const config = (env: Record<string, string>) => loadConfig({ MANAGEMENT_PORT: '0', ...env });
const logger = createLogger('silent', 'test');

test('draining: readiness 503 at once, listeners close after the delay, then the closers in order', async () => {
  const server = await listen((_, response) => response.end('ok'), '127.0.0.1', 0);
  const closed: string[] = [];
  const service = await openService({
    name: 'api',
    config: config({ SHUTDOWN_DELAY_MS: '300' }),
    logger,
    checks: [],
    registry: createMetrics().registry,
    listeners: [{ name: 'public', server }],
    closers: [
      { name: 'store', close: async () => void closed.push('store') },
      { name: 'database', close: async () => void closed.push('database') },
    ],
  });
  assert.equal((await fetch(`${service.managementServer.origin}/readyz`)).status, 200);
  const drained = service.drain();
  const ready = await fetch(`${service.managementServer.origin}/readyz`);
  assert.equal(ready.status, 503);
  assert.deepEqual(await ready.json(), { status: 'draining', checks: {} });
  assert.equal((await fetch(server.origin)).status, 200, 'still serving during the delay');
  assert.deepEqual(await drained, { cut: [] });
  assert.deepEqual(closed, ['store', 'database']);
  await assert.rejects(fetch(server.origin), 'the listener is closed');
  await assert.rejects(fetch(`${service.managementServer.origin}/livez`), 'so is the management listener');
});

test('past SHUTDOWN_TIMEOUT_MS the drain stops waiting and says what it cut', async () => {
  const server = await listen(() => {}, '127.0.0.1', 0); // never answers
  const service = await openService({
    name: 'api',
    config: config({ SHUTDOWN_DELAY_MS: '0', SHUTDOWN_TIMEOUT_MS: '300' }),
    logger,
    checks: [],
    registry: createMetrics().registry,
    listeners: [{ name: 'public', server }],
    closers: [{ name: 'webhook worker', close: () => sleep(5_000) }],
  });
  const stuck = fetch(server.origin).catch(() => 'cut');
  await sleep(50);
  const started = performance.now();
  const outcome = await service.drain({ delay: false });
  assert.ok(performance.now() - started < 1_500, 'bounded by the timeout');
  assert.deepEqual(outcome.cut, ['1 request(s) in flight on the public listener', 'closing the webhook worker']);
  assert.equal(await stuck, 'cut');
});
