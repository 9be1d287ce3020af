import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { type FaultProxy, startFaultProxy } from '@devplat/test/fault-proxy';
import { pollUntil } from '@devplat/test/redis-topologies';
import { type KeyValueStore, memoryStore, redisClientOf, redisConnectionsOf, redisStore } from '../src/index.ts';

const redisUrl = process.env.REDIS_URL?.trim();
const idTime = (id: string) => Number(id.split('-')[0]);
/** Stream ids in their order: by time, then sequence. */
const byId = (a: string, b: string) => idTime(a) - idTime(b) || Number(a.split('-')[1]) - Number(b.split('-')[1]);
const stores: [string, () => KeyValueStore][] = [['memory', memoryStore]];
if (redisUrl) stores.push(['redis', () => redisStore(redisUrl, { prefix: `test:${randomUUID()}:`, timeoutMs: 2_000 })]);

for (const [name, open] of stores) {
  describe(`${name} store`, () => {
    const store = open();
    before(() => store.ready());
    after(() => store.close());

    test('puts, reads and deletes', async () => {
      await store.put('a', '1');
      await store.put('b', '2', 60);
      assert.deepEqual(await store.getMany(['a', 'b', 'c']), ['1', '2', null]);
      await store.delete(['a', 'b']);
      assert.deepEqual(await store.getMany(['a', 'b']), [null, null]);
    });

    test('values expire', async () => {
      await store.put('short', 'x', 1);
      assert.deepEqual(await store.getMany(['short']), ['x']);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      assert.deepEqual(await store.getMany(['short']), [null]);
    });

    test('putIfAbsent: of 20 concurrent writers exactly one wins', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => store.putIfAbsent('once', String(i), 60)));
      assert.equal(results.filter(Boolean).length, 1);
    });

    test('increment counts atomically from zero', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, () => store.increment('counter')));
      assert.deepEqual(
        [...results].sort((a, b) => a - b),
        Array.from({ length: 20 }, (_, i) => i + 1),
      );
    });

    test('counters add whole batches, each key kept for the time given', async () => {
      await store.addToCounters(
        new Map([
          ['n:{a}:1', 2],
          ['n:{b}:1', 5],
        ]),
        60,
      );
      await store.addToCounters(new Map([['n:{a}:1', 3]]), 60);
      assert.deepEqual(await store.getMany(['n:{a}:1', 'n:{b}:1', 'n:{c}:1']), ['5', '5', null]);
    });

    test('a key asked for twice is answered at each place', async () => {
      await store.put('twice', 'v');
      assert.deepEqual(await store.getMany(['twice', 'none', 'twice']), ['v', null, 'v']);
    });

    test('putFiled stores a value and files its key in a set', async () => {
      await store.putFiled('entry:{f1}', 'v', 60, 'index:{f1}');
      await store.putFiled('entry:{f2}', 'w', undefined, 'index:{f1}');
      assert.deepEqual(await store.getMany(['entry:{f1}', 'entry:{f2}']), ['v', 'w']);
      assert.deepEqual((await store.members('index:{f1}')).sort(), ['entry:{f1}', 'entry:{f2}']);
      assert.deepEqual(await store.members('nothing'), []);
    });

    test('swap replaces a value that begins as expected and claims, or writes nothing', async () => {
      const swap = (from: string, to: string) =>
        store.swap(
          'family:{s1}',
          { from: `{"id":"${from}",`, to: `{"id":"${to}","n":1}`, ttlSeconds: 60 },
          { key: `family:{s1}:${from}:used`, value: '1', ttlSeconds: 60 },
        );
      assert.equal(await swap('t0', 't1'), false, 'nothing to compare with');
      assert.deepEqual(await store.getMany(['family:{s1}', 'family:{s1}:t0:used']), [null, null]);
      await store.put('family:{s1}', '{"id":"t0","n":0}', 60);
      assert.equal(await swap('t9', 't1'), false, 'another value');
      assert.equal(await swap('t', 't1'), false, 'a prefix of the id is not the id');
      assert.deepEqual(await store.getMany(['family:{s1}']), ['{"id":"t0","n":0}']);
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => swap('t0', `t1-${i}`)));
      assert.equal(results.filter(Boolean).length, 1, 'of 20 concurrent swaps exactly one wins');
      const winner = results.indexOf(true);
      assert.deepEqual(await store.getMany(['family:{s1}', 'family:{s1}:t0:used']), [
        `{"id":"t1-${winner}","n":1}`,
        '1',
      ]);
      await store.put('family:{s1}', '{"id":"t0","n":0}', 60);
      assert.equal(await swap('t0', 't2'), false, 'the claim is held: a value put back is not swapped again');
    });

    test('a swap writes and files the entry alongside it only when it swaps', async () => {
      await store.put('family:{s2}', '{"id":"t0",', 60);
      const swap = (from: string, to: string, value: string) =>
        store.swap(
          'family:{s2}',
          {
            from: `{"id":"${from}",`,
            to: `{"id":"${to}",`,
            ttlSeconds: 60,
            alongside: { key: 'grant:{s2}', value, setKey: 'index:{s2}' },
          },
          { key: `family:{s2}:${from}:used`, value: '1', ttlSeconds: 60 },
        );
      assert.equal(await swap('t9', 't1', 'not swapped'), false);
      assert.deepEqual(await store.getMany(['grant:{s2}']), [null], 'no swap, nothing alongside');
      assert.deepEqual(await store.members('index:{s2}'), []);
      assert.equal(await swap('t0', 't1', 'extended'), true);
      assert.deepEqual(await store.getMany(['family:{s2}', 'grant:{s2}']), ['{"id":"t1",', 'extended']);
      assert.deepEqual(await store.members('index:{s2}'), ['grant:{s2}']);
      const redis = redisClientOf(store);
      if (redis) {
        const ttls = await Promise.all(['grant:s2', 'index:s2'].map((key) => redis.ttl(key)));
        assert.ok(
          ttls.every((ttl) => ttl > 50 && ttl <= 60),
          `both kept as long as the swapped value: ${ttls}`,
        );
      }
    });

    test('takeOnce takes a matching value once, and leaves one that does not match', async () => {
      const take = (session: string) =>
        store.takeOnce(
          'request:{r1}',
          { field: 'session', equals: session },
          { key: 'request:{r1}:answered', value: '1', ttlSeconds: 60 },
        );
      const saved = '{"id":"r1","session":"s-a"}';
      assert.deepEqual(await take('s-a'), { outcome: 'none' }, 'nothing to take');
      await store.put('request:{r1}', saved, 60);
      assert.deepEqual(await take('s-b'), { outcome: 'kept' }, 'another session: left as it was');
      assert.deepEqual(await take('s'), { outcome: 'kept' }, 'a prefix of the session is not the session');
      assert.deepEqual(await store.getMany(['request:{r1}', 'request:{r1}:answered']), [saved, null]);
      const results = await Promise.all(Array.from({ length: 20 }, () => take('s-a')));
      assert.deepEqual(
        results.filter((result) => result.outcome === 'taken'),
        [{ outcome: 'taken', value: saved }],
        'of 20 concurrent takes exactly one gets the value',
      );
      assert.deepEqual(await store.getMany(['request:{r1}', 'request:{r1}:answered']), [null, '1']);
      await store.put('request:{r1}', saved, 60);
      assert.deepEqual(
        await take('s-a'),
        { outcome: 'none' },
        'the claim is held: a value put back is not taken again',
      );
      await store.put('request:{r2}', 'not json', 60);
      const other = { key: 'request:{r2}:answered', value: '1', ttlSeconds: 60 };
      assert.deepEqual(await store.takeOnce('request:{r2}', { field: 'session', equals: 's-a' }, other), {
        outcome: 'kept',
      });
    });

    test('streams keep their newest entries within their bounds, read either way from any entry', async () => {
      const values = (entries: { value: string }[]) => entries.map((entry) => entry.value);
      const bounds = { maxLength: 5, minTime: 0, ttlSeconds: 60 };
      await store.appendToStreams([
        { key: 'log:{s1}', values: ['a', 'b', 'c'], ...bounds },
        { key: 'log:{s2}', values: ['x'], ...bounds },
      ]);
      await store.appendToStreams([{ key: 'log:{s1}', values: ['d', 'e', 'f', 'g'], ...bounds }]);
      const newest = await store.readStream('log:{s1}', { direction: 'older', count: 10 });
      assert.deepEqual(values(newest), ['g', 'f', 'e', 'd', 'c'], 'the newest five, newest first');
      const ids = newest.map((entry) => entry.id);
      assert.ok(ids.every((id) => /^\d+-\d+$/.test(id)));
      assert.deepEqual(ids.toReversed(), [...ids].sort(byId), 'ids ascend in the stream');
      const [, f, e, d] = ids as [string, string, string, string];
      const older = (inclusive: boolean) =>
        store.readStream('log:{s1}', { direction: 'older', from: { id: e, inclusive }, count: 2 });
      assert.deepEqual(values(await older(false)), ['d', 'c']);
      assert.deepEqual(values(await older(true)), ['e', 'd']);
      const newer = (inclusive: boolean) =>
        store.readStream('log:{s1}', { direction: 'newer', from: { id: d, inclusive }, count: 10 });
      assert.deepEqual(values(await newer(false)), ['e', 'f', 'g']);
      assert.deepEqual(values(await newer(true)), ['d', 'e', 'f', 'g']);
      assert.deepEqual(values(await store.readStream('log:{s1}', { direction: 'newer', count: 2 })), ['c', 'd']);
      assert.deepEqual(
        values(await store.readStream('log:{s1}', { direction: 'newer', from: { id: f, inclusive: false }, count: 5 })),
        ['g'],
      );
      assert.deepEqual(values(await store.readStream('log:{s2}', { direction: 'older', count: 5 })), ['x']);
      assert.deepEqual(await store.readStream('log:{none}', { direction: 'older', count: 5 }), []);
    });

    test('streams that follow each other take their ids from one sequence, in the order of the writes', async () => {
      const bounds = { maxLength: 100, minTime: 0, ttlSeconds: 60 };
      const written: string[] = [];
      for (let write = 0; write < 20; write++) {
        await store.appendToStreams([
          { key: 'seq:{f1}:a', values: [`a${write}`, `a${write}+`], ...bounds, follows: ['seq:{f1}:b'] },
          { key: 'seq:{f1}:b', values: [`b${write}`], ...bounds, follows: ['seq:{f1}:a'] },
        ]);
        written.push(`a${write}`, `a${write}+`, `b${write}`);
      }
      const read = (key: string) => store.readStream(key, { direction: 'newer', count: 100 });
      const both = [...(await read('seq:{f1}:a')), ...(await read('seq:{f1}:b'))];
      assert.equal(new Set(both.map((entry) => entry.id)).size, both.length, 'no id given twice');
      assert.deepEqual(
        both.sort((x, y) => byId(x.id, y.id)).map((entry) => entry.value),
        written,
      );
    });

    test('a stream drops entries older than its time bound, and reads skip them', async () => {
      await store.appendToStreams([{ key: 'log:{t1}', values: ['old'], maxLength: 10, minTime: 0, ttlSeconds: 60 }]);
      const [old] = await store.readStream('log:{t1}', { direction: 'older', count: 1 });
      const later = idTime(old?.id ?? '0-0') + 1;
      assert.deepEqual(await store.readStream('log:{t1}', { direction: 'older', minTime: later, count: 5 }), []);
      assert.deepEqual(
        await store.readStream('log:{t1}', {
          direction: 'newer',
          minTime: later,
          from: { id: '1-0', inclusive: true },
          count: 5,
        }),
        [],
      );
      await new Promise((resolve) => setTimeout(resolve, 5));
      await store.appendToStreams([
        { key: 'log:{t1}', values: ['new'], maxLength: 10, minTime: later, ttlSeconds: 60 },
      ]);
      const kept = await store.readStream('log:{t1}', { direction: 'older', count: 5 });
      assert.deepEqual(
        kept.map((entry) => entry.value),
        ['new'],
      );
    });

    test('ping answers while the store is open, and refuses as unavailable once it is closed', async () => {
      const own = open();
      await own.ready();
      await own.ping();
      await own.close();
      await assert.rejects(own.ping(), DependencyUnavailableError);
    });
  });
}

describe('a single Redis server', { skip: redisUrl ? false : 'needs a real Redis (REDIS_URL)' }, () => {
  const prefix = `test:${randomUUID()}:`;

  test("reads a tagged key as the untagged one: a hash tag's braces are not sent", async () => {
    const store = redisStore(redisUrl as string, { prefix, timeoutMs: 2_000 });
    await store.ready();
    try {
      await store.put('family:{g1}:record', 'r');
      const client = redisClientOf(store);
      assert.equal(await client?.get('family:g1:record'), 'r');
      await store.delete(['family:{g1}:record']);
      assert.equal(await client?.exists('family:g1:record'), 0);
    } finally {
      await store.close();
    }
  });

  test('a durable claim no replica acknowledged fails within the bound and is taken back', async () => {
    const store = redisStore(redisUrl as string, { prefix, timeoutMs: 400, waitReplicas: 1 });
    await store.ready();
    try {
      const started = Date.now();
      await assert.rejects(store.putIfAbsent('used:{c1}', '1', 60, { durable: true }), DependencyUnavailableError);
      assert.ok(Date.now() - started < 400, `answered in ${Date.now() - started} ms`);
      assert.deepEqual(await store.getMany(['used:{c1}']), [null], 'a retry may claim again');
      assert.equal(await store.putIfAbsent('plain:{c1}', '1', 60), true, 'a claim that is not durable does not wait');
      await assert.rejects(store.increment('version:{a1}', { durable: true }), DependencyUnavailableError);
    } finally {
      await store.close();
    }
  });

  test('a durable swap no replica acknowledged fails and is undone', async () => {
    const store = redisStore(redisUrl as string, { prefix, timeoutMs: 400, waitReplicas: 1 });
    await store.ready();
    try {
      await store.put('family:{s2}', '{"id":"t0"}', 60);
      const swap = () =>
        store.swap(
          'family:{s2}',
          { from: '{"id":"t0"', to: '{"id":"t1"}', ttlSeconds: 60 },
          { key: 'family:{s2}:t0:used', value: '1', ttlSeconds: 60 },
          { durable: true },
        );
      await assert.rejects(swap(), DependencyUnavailableError);
      assert.deepEqual(
        await store.getMany(['family:{s2}', 'family:{s2}:t0:used']),
        ['{"id":"t0"}', null],
        'a retry may swap',
      );
      assert.ok(((await redisClientOf(store)?.ttl('family:s2')) ?? 0) > 0, 'the value keeps a time to live');
    } finally {
      await store.close();
    }
  });

  describe('a single-use write that fails leaves nothing behind', () => {
    const bound = 400;
    const port = Number(new URL(redisUrl as string).port || 6379);
    const record = '{"id":"t0","payload":{}}';
    const swapped = '{"id":"t1","payload":{}}';
    // One store through a proxy that fails as told, one straight to Redis that sees what is there.
    type Faulty = { proxy: FaultProxy; store: KeyValueStore; direct: KeyValueStore };
    const withFaults = async (scenario: (faulty: Faulty) => Promise<void>) => {
      const proxy = await startFaultProxy({ port });
      const prefix = `test:${randomUUID()}:`;
      const store = redisStore(proxy.proxied(redisUrl as string), { prefix, timeoutMs: bound });
      const direct = redisStore(redisUrl as string, { prefix, timeoutMs: 2_000 });
      try {
        await Promise.all([store.ready(), direct.ready()]);
        await direct.put('family:{f}', record, 60);
        await scenario({ proxy, store, direct });
      } finally {
        await Promise.all([store.close(), direct.close()]);
        await proxy.close();
      }
    };
    const swap = (store: KeyValueStore, to = swapped) =>
      store.swap(
        'family:{f}',
        { from: '{"id":"t0"', to, ttlSeconds: 60 },
        { key: 'family:{f}:t0:used', value: '1', ttlSeconds: 60 },
        { durable: true },
      );
    const state = (direct: KeyValueStore) => direct.getMany(['family:{f}', 'family:{f}:t0:used']);
    const healed = (store: KeyValueStore) =>
      pollUntil(
        'the store answering again',
        async () => {
          await store.ping();
          return true;
        },
        5_000,
      );
    /** Nothing of the failed swap is left, and the client's retry swaps. */
    const retrySwaps = async ({ store, direct }: Faulty) => {
      assert.deepEqual(await state(direct), [record, null]);
      await healed(store);
      assert.equal(await swap(store), true, "the client's retry swaps");
    };
    // How many writes Redis has refused as late (INFO errorstats counts error replies by their first word).
    const lateWrites = async (direct: KeyValueStore) => {
      const info = (await redisClientOf(direct)?.info('errorstats')) ?? '';
      return Number(/^errorstat_LATE:count=(\d+)/m.exec(info)?.[1] ?? 0);
    };
    /** Holds what the store sends while `write` fails, then lets it reach Redis, which must refuse it. */
    const heldTooLong = async ({ proxy, direct }: Faulty, write: () => Promise<unknown>) => {
      const refused = await lateWrites(direct);
      await proxy.hold();
      await failsInTime(write());
      await proxy.restore(); // the held write now reaches Redis, past its deadline
      await pollUntil('Redis refused the late write', async () => (await lateWrites(direct)) > refused, 5_000);
    };
    const failsInTime = async (write: Promise<unknown>) => {
      const started = Date.now();
      await assert.rejects(write, DependencyUnavailableError);
      const took = Date.now() - started;
      assert.ok(took < 1.5 * bound, `answered in ${took} ms, bound ${bound} ms`);
    };
    const takenBack = (direct: KeyValueStore) =>
      pollUntil('the swap taken back', async () => (await state(direct))[0] === record, 5_000);

    test('a swap that reaches Redis after its caller gave up is refused there', () =>
      withFaults(async (faulty) => {
        await heldTooLong(faulty, () => swap(faulty.store));
        await retrySwaps(faulty);
      }));

    test('a swap that ran but whose answer was lost is taken back', () =>
      withFaults(async (faulty) => {
        await faulty.proxy.deaf();
        await failsInTime(swap(faulty.store));
        await faulty.proxy.restore();
        await takenBack(faulty.direct);
        await retrySwaps(faulty);
      }));

    test('a swap that ran before Redis went away is taken back once Redis is back', () =>
      withFaults(async (faulty) => {
        const { proxy, store, direct } = faulty;
        await proxy.deaf();
        const write = swap(store);
        await pollUntil('the swap ran in Redis', async () => (await state(direct))[0] === swapped);
        await proxy.refuse();
        await failsInTime(write);
        assert.equal((await state(direct))[0], swapped, 'not taken back while Redis cannot be reached');
        await proxy.restore();
        await takenBack(direct);
        await retrySwaps(faulty);
      }));

    test('a claim that ran but whose answer was lost is taken back; a later claim is kept', () =>
      withFaults(async (faulty) => {
        const { proxy, store, direct } = faulty;
        const claim = (value: string) => store.putIfAbsent('used:{c}', value, 60, { durable: true });
        await proxy.deaf();
        await failsInTime(claim('mine'));
        await proxy.restore();
        await pollUntil('the claim taken back', async () => (await direct.getMany(['used:{c}']))[0] === null, 5_000);
        await healed(store);
        assert.equal(await claim('retry'), true);
        await heldTooLong(faulty, () => claim('late'));
        assert.deepEqual(await direct.getMany(['used:{c}']), ['retry'], 'the undo takes back only its own claim');
      }));
  });

  test('without REDIS_WAIT_REPLICAS a durable claim is an ordinary one', async () => {
    const store = redisStore(redisUrl as string, { prefix, timeoutMs: 2_000 });
    await store.ready();
    try {
      assert.equal(await store.putIfAbsent('used:{c2}', '1', 60, { durable: true }), true);
      assert.equal(await store.putIfAbsent('used:{c2}', '2', 60, { durable: true }), false);
      assert.equal(await store.increment('version:{a2}', { durable: true }), 1);
    } finally {
      await store.close();
    }
  });
});

describe('redisConnectionsOf', () => {
  test('names the connections of the writes that wait for replicas, when they have their own', async () => {
    const plain = redisStore('redis://127.0.0.1:1', { timeoutMs: 200 });
    const waiting = redisStore('redis://127.0.0.1:1', { timeoutMs: 200, waitReplicas: 1 });
    try {
      assert.deepEqual(
        redisConnectionsOf(plain).map(({ pool }) => pool),
        ['redis'],
      );
      assert.deepEqual(
        redisConnectionsOf(waiting).map(({ pool }) => pool),
        ['redis', 'redis_durable', 'redis_durable', 'redis_durable', 'redis_durable'],
      );
      assert.deepEqual(redisConnectionsOf(memoryStore()), []);
    } finally {
      await Promise.all([plain.close(), waiting.close()]);
    }
  });
});

describe('redisClientOf', () => {
  test('gives the client of a Redis store, with its key prefix, and null for any other store', async () => {
    const memory = memoryStore();
    const redis = redisStore('redis://127.0.0.1:1', { prefix: 'mine:', timeoutMs: 200 });
    try {
      assert.equal(redisClientOf(memory), null);
      assert.equal(redisClientOf(redis)?.options.keyPrefix, 'mine:');
    } finally {
      await memory.close();
      await redis.close();
    }
  });
});

describe('an unreachable Redis', () => {
  test('fails every operation fast with DependencyUnavailableError', async () => {
    const store = redisStore('redis://127.0.0.1:1', { timeoutMs: 2_000 });
    try {
      const started = Date.now();
      await assert.rejects(store.getMany(['a']), DependencyUnavailableError);
      await assert.rejects(store.putIfAbsent('a', '1', 1), DependencyUnavailableError);
      await assert.rejects(store.ping(), DependencyUnavailableError);
      assert.ok(Date.now() - started < 3_000);
    } finally {
      await store.close();
    }
  });
});

describe('a Redis that stops answering', { skip: redisUrl ? false : 'needs a real Redis (REDIS_URL)' }, () => {
  const bound = 300;

  /** Runs `work` and returns how long it took, asserting it failed as a dependency failure. */
  async function failsWithin(work: () => Promise<unknown>): Promise<number> {
    const started = performance.now();
    await assert.rejects(work, DependencyUnavailableError);
    const took = performance.now() - started;
    assert.ok(took < bound + 200, `took ${Math.round(took)} ms, bound ${bound} ms`);
    return took;
  }

  /** Resolves once a write and its read succeed again; how long after the call that took. */
  async function healsWithin(store: KeyValueStore, limitMs: number): Promise<void> {
    const started = performance.now();
    for (;;) {
      const value = randomUUID();
      try {
        await store.put('healed', value, 60);
        assert.deepEqual(await store.getMany(['healed']), [value]);
        return;
      } catch (error) {
        assert.ok(error instanceof DependencyUnavailableError, String(error));
        assert.ok(performance.now() - started < limitMs, `not healed within ${limitMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  for (const fault of ['stall', 'refuse'] as const) {
    test(`${fault}: every command fails within the bound, and the store heals by itself`, async () => {
      const proxy = await startFaultProxy({ port: Number(new URL(redisUrl as string).port || 6379) });
      const store = redisStore(proxy.proxied(redisUrl as string), {
        prefix: `test:${randomUUID()}:`,
        timeoutMs: bound,
      });
      try {
        await store.ready();
        await store.put('before', 'kept', 60);
        await proxy[fault]();
        // Commands go out while nothing comes back: on a stall their replies are lost for good.
        for (let i = 0; i < 4; i += 1) {
          await Promise.all([
            failsWithin(() => store.getMany(['before'])),
            failsWithin(() => store.putIfAbsent(`during-${i}`, 'x', 60)),
            failsWithin(() => store.putFiled(`filed-${i}`, 'x', 60, 'set')),
          ]);
        }
        await proxy.restore();
        await healsWithin(store, 2 * bound + 1_500);
        assert.deepEqual(await store.getMany(['before']), ['kept']);
        // Nothing out of step: each command gets its own reply.
        const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
        await Promise.all(keys.map((key) => store.put(key, key, 60)));
        assert.deepEqual(await store.getMany(keys), keys);
      } finally {
        await store.close();
        await proxy.close();
      }
    });
  }

  test('a timed-out write is never sent again once the connection is replaced', async () => {
    const proxy = await startFaultProxy({ port: Number(new URL(redisUrl as string).port || 6379) });
    const prefix = `test:${randomUUID()}:`;
    const store = redisStore(proxy.proxied(redisUrl as string), { prefix, timeoutMs: bound });
    const direct = redisStore(redisUrl as string, { prefix, timeoutMs: 2_000 });
    await store.ready();
    try {
      await store.ready();
      await proxy.stall();
      await failsWithin(() => store.putIfAbsent('marker', 'late', 60));
      await proxy.restore();
      await healsWithin(store, 2 * bound + 1_500);
      assert.deepEqual(await direct.getMany(['marker']), [null], 'the failed write did not happen later');
    } finally {
      await store.close();
      await direct.close();
      await proxy.close();
    }
  });
});
