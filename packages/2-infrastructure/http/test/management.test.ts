// The management listener: liveness without dependency checks, readiness naming each failed check
// (a refusal, and one that never answers within the bound), draining, and Prometheus text.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { createMetrics } from '@devplat/metrics';
import { createLogger, listen, type Management, managementApp, type RunningServer } from '../src/index.ts';

let postgresql: 'ok' | 'refused' | 'hung' = 'ok';
let management: Management;
let server: RunningServer;
before(async () => {
  management = managementApp({
    logger: createLogger('silent', 'test'),
    registry: createMetrics().registry,
    checkTimeoutMs: 200,
    checks: [
      {
        name: 'postgresql',
        check: () =>
          postgresql === 'ok'
            ? Promise.resolve()
            : postgresql === 'refused'
              ? Promise.reject(new Error('connection refused'))
              : new Promise(() => {}),
      },
      { name: 'redis', check: async () => {} },
    ],
  });
  server = await listen(management.app.callback(), '127.0.0.1', 0);
});
after(() => server.close());

const get = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${server.origin}${path}`, init);
  return { status: response.status, type: response.headers.get('content-type'), text: await response.text() };
};

describe('the management listener', () => {
  test('/livez answers without asking any dependency', async () => {
    postgresql = 'hung';
    const live = await get('/livez');
    assert.equal(live.status, 200);
    assert.deepEqual(JSON.parse(live.text), { status: 'alive' });
  });

  test('/readyz is 200 when every check answers, 503 naming each failed one', async () => {
    postgresql = 'ok';
    const ready = await get('/readyz');
    assert.equal(ready.status, 200);
    assert.deepEqual(JSON.parse(ready.text), { status: 'ready', checks: { postgresql: 'ok', redis: 'ok' } });

    postgresql = 'refused';
    const refused = await get('/readyz');
    assert.equal(refused.status, 503);
    assert.deepEqual(JSON.parse(refused.text), {
      status: 'not_ready',
      checks: { postgresql: 'connection refused', redis: 'ok' },
    });

    postgresql = 'hung';
    const started = Date.now();
    const hung = await get('/readyz');
    assert.equal(hung.status, 503);
    assert.equal(JSON.parse(hung.text).checks.postgresql, 'did not answer within 200 ms');
    assert.ok(Date.now() - started < 2_000, 'a hung check is bounded');

    postgresql = 'ok';
    assert.equal((await get('/readyz')).status, 200, 'ready again once it answers');
  });

  test('/metrics is Prometheus text with the process metrics', async () => {
    const metrics = await get('/metrics');
    assert.equal(metrics.status, 200);
    assert.match(metrics.type ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(metrics.text, /^# TYPE process_cpu_user_seconds_total counter$/m);
    assert.match(metrics.text, /^nodejs_eventloop_lag_seconds \d/m);
  });

  test('other paths and methods are refused like on every API', async () => {
    assert.equal((await get('/readyz', { method: 'POST' })).status, 405);
    assert.equal((await get('/healthz')).status, 404);
  });

  test('once draining, /readyz is 503 draining and /livez still 200', async () => {
    management.drain();
    const draining = await get('/readyz');
    assert.equal(draining.status, 503);
    assert.equal(JSON.parse(draining.text).status, 'draining');
    assert.equal((await get('/livez')).status, 200);
  });
});

test('until its first answer a store that is unreachable or slow is connecting; afterwards its reason shows', async () => {
  let redis: 'down' | 'slow' | 'ok' = 'down';
  const starting = managementApp({
    logger: createLogger('silent', 'test'),
    registry: createMetrics().registry,
    checkTimeoutMs: 200,
    checks: [
      {
        name: 'redis',
        check: () =>
          redis === 'ok'
            ? Promise.resolve()
            : redis === 'down'
              ? Promise.reject(new DependencyUnavailableError('Redis'))
              : new Promise(() => {}),
      },
      { name: 'schema', check: () => Promise.reject(new Error('older schema than this build')) },
    ],
  });
  const listener = await listen(starting.app.callback(), '127.0.0.1', 0);
  try {
    const checks = async () => {
      const response = await fetch(`${listener.origin}/readyz`);
      assert.equal(response.status, 503);
      return ((await response.json()) as { checks: Record<string, string> }).checks;
    };
    assert.deepEqual(await checks(), { redis: 'connecting', schema: 'older schema than this build' });
    redis = 'slow';
    assert.equal((await checks()).redis, 'connecting');
    redis = 'ok';
    assert.equal((await checks()).redis, 'ok');
    redis = 'down';
    assert.equal((await checks()).redis, 'Redis is unavailable');
    redis = 'slow';
    assert.equal((await checks()).redis, 'did not answer within 200 ms');
  } finally {
    await listener.close();
  }
});

test("a check may say what it found: an answer starting 'ok: ' is shown and counts as ready", async () => {
  const noting = managementApp({
    logger: createLogger('silent', 'test'),
    registry: createMetrics().registry,
    checkTimeoutMs: 200,
    checks: [
      { name: 'schema', check: async () => 'ok: newer schema, expand-only (20990101000000_x)' },
      // Anything else a check resolves with is not shown: it held, so it answers ok.
      { name: 'redis', check: async () => 'PONG' },
    ],
  });
  const listener = await listen(noting.app.callback(), '127.0.0.1', 0);
  try {
    const response = await fetch(`${listener.origin}/readyz`);
    assert.equal(response.status, 200);
    assert.deepEqual(await response.json(), {
      status: 'ready',
      checks: { schema: 'ok: newer schema, expand-only (20990101000000_x)', redis: 'ok' },
    });
  } finally {
    await listener.close();
  }
});
