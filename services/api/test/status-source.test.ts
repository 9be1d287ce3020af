import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { healthy, type StatusServer, startStatusServer, summary } from '@devplat/test/status-server';
import { createStatusSource, parseSummary } from '../src/status-source.ts';

describe('Statuspage summary mapping', () => {
  test('maps the indicator and every component state onto the contract enum', () => {
    assert.deepEqual(parseSummary(summary()), {
      overall: 'DEGRADED',
      updated_at: '2026-11-22T10:00:00.000Z',
      components: [
        { code: 'api_gateway', status: 'OPERATIONAL' },
        { code: 'matchmaking', status: 'DEGRADED' },
        { code: 'payments', status: 'PARTIAL_OUTAGE' },
        { code: 'login', status: 'MAJOR_OUTAGE' },
        { code: 'maps', status: 'MAINTENANCE' },
        { code: 'voice_chat', status: 'UNKNOWN' },
      ],
    });
  });

  test('maps each indicator', () => {
    const overall = (indicator: string) =>
      parseSummary(summary({ status: { indicator, description: '' } }))?.overall ?? null;
    assert.equal(overall('none'), 'OPERATIONAL');
    assert.equal(overall('minor'), 'DEGRADED');
    assert.equal(overall('major'), 'PARTIAL_OUTAGE');
    assert.equal(overall('critical'), 'MAJOR_OUTAGE');
    assert.equal(overall('maintenance'), 'MAINTENANCE');
    assert.equal(overall('sparkles'), 'UNKNOWN');
  });

  test('refuses shapes that are not a summary', () => {
    for (const value of [
      null,
      [],
      'text',
      {},
      summary({ status: null }),
      summary({ status: { indicator: 3 } }),
      summary({ page: {} }),
      summary({ components: 'none' }),
      summary({ components: [null] }),
      summary({ components: [{ name: 'A' }] }),
    ]) {
      assert.equal(parseSummary(value), null, JSON.stringify(value));
    }
  });
});

describe('status source over HTTP', () => {
  let source: StatusServer;
  before(async () => {
    source = await startStatusServer();
  });
  after(() => source.close());

  const fresh = (options = {}) => createStatusSource(source.url, { ttlMs: 60_000, failureTtlMs: 60_000, ...options });

  test('reads a healthy source and caches the answer', async () => {
    source.behave(healthy);
    const status = fresh();
    const hits = source.hits;
    assert.equal((await status.current())?.overall, 'DEGRADED');
    assert.equal((await status.current())?.overall, 'DEGRADED');
    assert.equal(source.hits, hits + 1);
  });

  test('concurrent callers share one request', async () => {
    source.behave((response) => setTimeout(() => healthy(response), 100));
    const status = fresh();
    const hits = source.hits;
    const answers = await Promise.all(Array.from({ length: 10 }, () => status.current()));
    assert.ok(answers.every((answer) => answer?.overall === 'DEGRADED'));
    assert.equal(source.hits, hits + 1);
  });

  const failures: [string, Parameters<StatusServer['behave']>[0]][] = [
    ['a 500', (r) => r.writeHead(500).end('oops')],
    ['a 404', (r) => r.writeHead(404).end()],
    ['bad JSON', (r) => r.writeHead(200, { 'content-type': 'application/json' }).end('{"page":')],
    ['an unexpected shape', (r) => r.writeHead(200).end(JSON.stringify({ hello: 'world' }))],
    ['a redirect', (r) => r.writeHead(302, { location: 'http://127.0.0.1:1/' }).end()],
    ['an oversized answer', (r) => r.writeHead(200).end(`{"x":"${'a'.repeat(2 * 1024 * 1024)}"}`)],
    ['no answer at all', () => {}],
    [
      'a body that trickles past the timeout',
      (r) => {
        r.writeHead(200, { 'content-type': 'application/json' });
        r.write('{"page":');
        setTimeout(() => r.end('{}}'), 3_000).unref();
      },
    ],
  ];
  for (const [name, behaviour] of failures) {
    test(`${name} gives null within the timeout`, async () => {
      source.behave(behaviour);
      const started = Date.now();
      assert.equal(await fresh({ timeoutMs: 300 }).current(), null);
      assert.ok(Date.now() - started < 1_000, 'answered within a second');
    });
  }

  test('a refused connection gives null', async () => {
    const status = createStatusSource(new URL('http://127.0.0.1:1/summary.json'));
    assert.equal(await status.current(), null);
  });

  test('a failure is remembered briefly, then the source is asked again', async () => {
    source.behave((r) => r.writeHead(503).end());
    const status = createStatusSource(source.url, { failureTtlMs: 150, ttlMs: 60_000 });
    assert.equal(await status.current(), null);
    source.behave(healthy);
    assert.equal(await status.current(), null, 'failure still cached');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await status.current())?.overall, 'DEGRADED');
  });

  test('no STATUS_URL means not integrated: always null', async () => {
    assert.equal(await createStatusSource(null).current(), null);
  });
});
