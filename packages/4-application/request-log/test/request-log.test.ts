// The request log (request-log.ts) on a store of each kind: what a flush writes, each stream within
// its own bound; the two streams of an app read back as one log in one order, a page at a time or
// after a place, filtered; a write that fails drops its entries and says so once, and what may wait
// is bounded; stop() flushes once more.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type KeyValueStore, memoryStore, redisStore } from '@devplat/kv';
import type { UsageLog } from '@devplat/usage';
import {
  flushRequestLogEvery,
  parsePosition,
  type RequestLogEntry,
  type RequestRecord,
  requestLog,
  requestLogReader,
} from '../src/index.ts';

const redisUrl = process.env.REDIS_URL?.trim();
const stores: [string, () => KeyValueStore][] = [['memory', memoryStore]];
if (redisUrl) stores.push(['redis', () => redisStore(redisUrl, { prefix: `test:${randomUUID()}:`, timeoutMs: 500 })]);

const bounds = { maxEntries: 5, maxFailedAuthentications: 3, retentionHours: 1 };

let requests = 0;
/** A call as auth or api notes it; `n` goes into its request id, so that each can be told apart. */
function call(clientId: string, overrides: Partial<RequestRecord> = {}): RequestRecord {
  requests += 1;
  return {
    clientId,
    authenticated: true,
    operation: 'token',
    status: 200,
    error: undefined,
    requestId: `req_${requests.toString(16).padStart(32, '0')}`,
    seconds: 0.0012,
    grantType: 'client_credentials',
    subject: undefined,
    ...overrides,
  };
}

const failed = (clientId: string) => call(clientId, { authenticated: false, status: 401, error: 'invalid_client' });

function recordingLog() {
  const lines: { level: 'warn' | 'info'; message: string; details: Record<string, unknown> }[] = [];
  const log: UsageLog = {
    warn: (details, message) => lines.push({ level: 'warn', message, details }),
    info: (details, message) => lines.push({ level: 'info', message, details }),
  };
  return { log, lines };
}

const ids = (entries: RequestLogEntry[]) => entries.map((entry) => entry.requestId);

for (const [name, open] of stores) {
  describe(`the request log on a ${name} store`, () => {
    const store = open();
    before(() => store.ready());
    after(() => store.close());
    const reader = requestLogReader(store, bounds);

    test('a flood is kept and written at its bound a second, spread over the writes, refusals first', async () => {
      const client = `svc_${randomUUID()}`;
      // 1000 a second, written every 20 ms: 20 a write, but never fewer than 100.
      const log = requestLog(store, { ...bounds, maxEntries: 1000, flushMs: 20 });
      const refusal = call(client, { status: 401, error: 'invalid_client' });
      const calls = [call(client), refusal, ...Array.from({ length: 150 }, () => call(client))];
      for (const record of calls) log.record(record);
      await log.flush();
      const { entries } = await reader.older(client, { limit: 200 });
      assert.equal(entries.length, 100);
      // Past what a write sends, successes are not even kept; the refusal goes first.
      assert.deepEqual(
        ids(entries),
        calls
          .slice(1, 101)
          .reverse()
          .map((record) => record.requestId),
        'the refusal and the first successes that fit, newest first',
      );
      const quiet = [call(client), call(client)];
      for (const record of quiet) log.record(record);
      await log.flush();
      assert.equal((await reader.older(client, { limit: 200 })).entries.length, 102, 'within the budget, every call');
    });

    test('keeps the newest calls of each stream within its bound, and nothing but their facts', async () => {
      const client = `svc_${randomUUID()}`;
      const log = requestLog(store, bounds);
      const own = Array.from({ length: 7 }, () => call(client));
      const strangers = Array.from({ length: 6 }, () => failed(client));
      for (const record of [...own, ...strangers]) log.record(record);
      log.record(call(client, { operation: 'me', subject: `ps_${'a'.repeat(32)}`, grantType: undefined }));
      log.record(call(client, { operation: 'cities', subject: 'a-player-uuid', error: 'not a code!' }));
      await log.flush();
      const { entries, more } = await reader.older(client, { limit: 100 });
      assert.equal(more, false);
      const mine = entries.filter((entry) => entry.clientAuthenticated);
      assert.equal(mine.length, bounds.maxEntries, "the app's newest five");
      assert.deepEqual(
        ids(entries.filter((entry) => !entry.clientAuthenticated)),
        strangers
          .slice(-3)
          .map((record) => record.requestId)
          .toReversed(),
        'the newest three failed authentications, apart',
      );
      const [cities, me] = mine;
      assert.deepEqual(
        { operation: me?.operation, subject: me?.subject, grantType: me?.grantType, latencyMs: me?.latencyMs },
        { operation: 'me', subject: `ps_${'a'.repeat(32)}`, grantType: null, latencyMs: 1.2 },
      );
      assert.equal(cities?.subject, null, 'only a pairwise subject is kept');
      assert.equal(cities?.error, null, 'only a code is kept');
    });

    test("reads an app's two streams as one log: pages, places and filters agree", async () => {
      const client = `svc_${randomUUID()}`;
      const log = requestLog(store, { ...bounds, maxEntries: 100, maxFailedAuthentications: 100 });
      // Interleaved in one flush: ids of the two streams collide, and the order still holds.
      for (let i = 0; i < 12; i++) log.record(i % 3 === 0 ? failed(client) : call(client));
      await log.flush();
      log.record(call(client, { status: 503, error: 'SERVICE_UNAVAILABLE' }));
      await log.flush();
      const whole = (await reader.older(client, { limit: 100 })).entries;
      assert.equal(whole.length, 13);

      const paged: RequestLogEntry[] = [];
      let before: ReturnType<typeof parsePosition> = null;
      for (;;) {
        const page = await reader.older(client, { ...(before && { before }), limit: 2 });
        paged.push(...page.entries);
        if (!page.more) break;
        before = parsePosition(page.entries.at(-1)?.id as string);
      }
      assert.deepEqual(ids(paged), ids(whole), 'pages of two give the whole log, in order');

      const oldestFirst = await reader.newer(client, null);
      assert.deepEqual(ids(oldestFirst.entries), ids(whole).toReversed(), 'after nothing: everything, oldest first');
      const middle = parsePosition(whole[6]?.id as string);
      assert.deepEqual(ids((await reader.newer(client, middle)).entries), ids(whole.slice(0, 6)).toReversed());
      assert.deepEqual(
        ids((await reader.older(client, { before: middle ?? undefined, limit: 100 })).entries),
        ids(whole.slice(7)),
      );

      const newest = await reader.newest(client);
      assert.equal(newest && `${newest.id}-${newest.tag}`, whole[0]?.id);
      assert.deepEqual((await reader.newer(client, newest)).entries, []);

      const failures = await reader.older(client, { limit: 100, filter: { statusClass: 4, error: 'invalid_client' } });
      assert.deepEqual(ids(failures.entries), ids(whole.filter((entry) => entry.status === 401)));
      const serverErrors = await reader.newer(client, null, { statusClass: 5 });
      assert.deepEqual(ids(serverErrors.entries), [whole[0]?.requestId]);
      assert.equal(serverErrors.position && `${serverErrors.position.id}-${serverErrors.position.tag}`, whole[0]?.id);
      assert.deepEqual((await reader.older(client, { limit: 100, filter: { operation: 'revoke' } })).entries, []);
    });

    test('many small writes read back in the order they were written, whatever milliseconds they cross', async () => {
      const client = `svc_${randomUUID()}`;
      const log = requestLog(store, { ...bounds, maxEntries: 100, maxFailedAuthentications: 100 });
      const written: RequestRecord[] = [];
      for (let write = 0; write < 30; write++) {
        const records = [call(client), failed(client), call(client)].slice(write % 3);
        for (const record of records) log.record(record);
        await log.flush();
        // A write sends the app's own calls, then the failed authentications.
        written.push(...records.filter((record) => record.authenticated), ...records.filter((r) => !r.authenticated));
      }
      const order = written.map((record) => record.requestId);
      assert.deepEqual(ids((await reader.older(client, { limit: 200 })).entries), order.toReversed(), 'newest first');
      assert.deepEqual(ids((await reader.newer(client, null)).entries), order, 'oldest first');
    });
  });
}

describe('the request log when a write crosses a millisecond', () => {
  // The memory store gives ids from Date.now(), mocked here: each stream of a write is appended at
  // a millisecond of its own, the next write at the last one's. Each stream's own ids would restart
  // at 0 there, so a call written later could sort before one written earlier.
  test('a call written later is newer in every read, and a tail placed before it reads it', async (t) => {
    t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
    const memory = memoryStore();
    t.after(() => memory.close());
    const store: KeyValueStore = {
      ...memory,
      appendToStreams: async (appends) => {
        for (const [at, append] of appends.entries()) {
          if (at > 0) t.mock.timers.tick(1);
          await memory.appendToStreams([append]);
        }
      },
    };
    const client = `svc_${randomUUID()}`;
    const log = requestLog(store, bounds);
    const reader = requestLogReader(store, bounds);
    const first = [call(client), failed(client), call(client), failed(client)];
    for (const record of first) log.record(record);
    await log.flush();
    const tail = await reader.newest(client);
    const later = call(client, { status: 503, error: 'SERVICE_UNAVAILABLE' });
    log.record(later);
    await log.flush();

    const whole = (await reader.older(client, { limit: 10 })).entries;
    assert.deepEqual(
      ids(whole),
      [later, first[3], first[1], first[2], first[0]].map((record) => record?.requestId),
      "newest first: the later write, then the first one's failed authentications and own calls",
    );
    assert.deepEqual(ids((await reader.newer(client, tail)).entries), [later.requestId], 'what a tail reads next');
    assert.deepEqual(ids((await reader.newer(client, null, { statusClass: 5 })).entries), [later.requestId]);
    const paged = await reader.older(client, { before: parsePosition(whole[0]?.id as string) ?? undefined, limit: 10 });
    assert.deepEqual(ids(paged.entries), ids(whole.slice(1)), 'the page after it: everything written before');
  });
});

describe('the request log on a store that fails', () => {
  test('a failed write drops its calls and says so once; it says so again once writing works', async () => {
    const store = memoryStore();
    let down = true;
    const failing: KeyValueStore = {
      ...store,
      appendToStreams: (appends) => (down ? Promise.reject(new Error('store down')) : store.appendToStreams(appends)),
    };
    const { log, lines } = recordingLog();
    const requests = requestLog(failing, bounds, { log });
    const client = `svc_${randomUUID()}`;
    requests.record(call(client));
    await requests.flush();
    requests.record(call(client));
    await requests.flush();
    assert.deepEqual(
      lines.map((line) => line.level),
      ['warn'],
      'one warning for the outage',
    );
    assert.match(lines[0]?.message ?? '', /writing to the store failed; those calls are dropped/);
    down = false;
    const kept = call(client);
    requests.record(kept);
    await requests.flush();
    assert.equal(lines[1]?.level, 'info');
    assert.equal(lines[1]?.details.dropped, 2);
    const { entries } = await requestLogReader(store, bounds).older(client, { limit: 10 });
    assert.deepEqual(ids(entries), [kept.requestId], 'only what was written after the outage');
    await store.close();
  });

  test('what waits for a flush is bounded: past the bound, calls are dropped and told once', async () => {
    const store = memoryStore();
    const { log, lines } = recordingLog();
    const requests = requestLog(store, bounds, { log, maxPending: 3 });
    const client = `svc_${randomUUID()}`;
    for (let i = 0; i < 6; i++) requests.record(call(client));
    assert.deepEqual(
      lines.map((line) => line.message),
      ['request log: too many calls waiting to be written; dropping new ones'],
    );
    await requests.flush();
    assert.equal(lines[1]?.details.dropped, 3);
    assert.equal((await requestLogReader(store, bounds).older(client, { limit: 10 })).entries.length, 3);
    await store.close();
  });

  test('the timer flushes, and stop() flushes what is still pending', async () => {
    const store = memoryStore();
    const requests = requestLog(store, bounds);
    const client = `svc_${randomUUID()}`;
    const reader = requestLogReader(store, bounds);
    const flushing = flushRequestLogEvery(requests, 20);
    requests.record(call(client));
    for (let i = 0; i < 50 && (await reader.older(client, { limit: 5 })).entries.length === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal((await reader.older(client, { limit: 5 })).entries.length, 1, 'written by the timer');
    requests.record(call(client));
    await flushing.stop();
    assert.equal((await reader.older(client, { limit: 5 })).entries.length, 2, 'and by stop()');
    await store.close();
  });
});
