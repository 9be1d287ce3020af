// The store on a real Redis Cluster (3 masters, 3 replicas) and a real Sentinel group, on loopback:
// no command spans two slots, tagged keys share one, and a durable claim counts only once a
// replica has it, and a failed one's undo is sent again until a replica has that too.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import {
  needsRedisBinaries,
  pollUntil,
  type RedisCluster,
  type RedisSentinel,
  redisCli,
  startRedisCluster,
  startRedisSentinel,
} from '@devplat/test/redis-topologies';
import calculateSlot from 'cluster-key-slot';
import { type KeyValueStore, type RedisAddress, redisStore } from '../src/index.ts';

const addresses = (list: string): RedisAddress[] =>
  list.split(',').map((item) => {
    const [host, port] = item.split(':');
    return { host: host as string, port: Number(port) };
  });

describe('the store on a Redis Cluster', { skip: needsRedisBinaries }, () => {
  let cluster: RedisCluster;
  let store: KeyValueStore;
  const prefix = `test:${randomUUID()}:`;
  before(async () => {
    cluster = await startRedisCluster();
    store = redisStore('redis://', {
      prefix,
      // WAIT gets a quarter of it: 2 s, not 0.5 s, for a replica's acknowledgement on a CI machine
      // busy with other files (a claim was refused there, its replica online but late).
      timeoutMs: 8_000,
      topology: { mode: 'cluster', nodes: addresses(cluster.nodes) },
      waitReplicas: 1,
    });
    await store.ready();
  });
  after(async () => {
    await store?.close();
    await cluster?.stop();
  });

  // Keys whose slots differ, so that a command over all of them would be refused (CROSSSLOT).
  const spread = Array.from({ length: 12 }, (_, index) => `k:{${index}}`);

  test('reads, deletes and counts over keys of many slots, a command per slot', async () => {
    assert.ok(new Set(spread.map((key) => calculateSlot(prefix + key))).size > 1, 'the keys fall in several slots');
    for (const [index, key] of spread.entries()) await store.put(key, String(index), 60);
    assert.deepEqual(await store.getMany([...spread, 'k:{none}']), [...spread.map((_, index) => String(index)), null]);
    await store.addToCounters(new Map(spread.map((key) => [`n:${key}`, 2])), 60);
    assert.deepEqual(
      await store.getMany(spread.map((key) => `n:${key}`)),
      spread.map(() => '2'),
    );
    await store.delete(spread);
    assert.deepEqual(
      await store.getMany(spread),
      spread.map(() => null),
    );
  });

  test('keys of one hash tag land in one slot, and the keys spread over every master', async () => {
    await store.put('oidc:AuthorizationCode:{c1}', 'code', 60);
    assert.equal(await store.putIfAbsent('oidc:AuthorizationCode:{c1}:consumed', '1', 60, { durable: true }), true);
    assert.equal(
      calculateSlot(`${prefix}oidc:AuthorizationCode:{c1}`),
      calculateSlot(`${prefix}oidc:AuthorizationCode:{c1}:consumed`),
    );
    for (const key of spread) await store.put(key, 'x', 60);
    const sizes = await Promise.all(
      (await cluster.masters()).map(async (port) => Number(await redisCli(port, 'DBSIZE'))),
    );
    assert.ok(
      sizes.every((size) => size > 0),
      `keys on every master: ${sizes.join(', ')}`,
    );
  });

  const byId = (a: string, b: string) =>
    Number(a.split('-')[0]) - Number(b.split('-')[0]) || Number(a.split('-')[1]) - Number(b.split('-')[1]);
  test('streams of many slots are appended in one call, each in its slot, and read back', async () => {
    const bounds = { maxLength: 3, minTime: 0, ttlSeconds: 60 };
    await store.appendToStreams(
      spread.flatMap((key, index) => [
        { key: `log:${key}`, values: ['a', 'b', 'c', String(index)], ...bounds, follows: [`log:${key}:u`] },
        { key: `log:${key}:u`, values: ['u'], ...bounds, follows: [`log:${key}`] },
      ]),
    );
    for (const [index, key] of spread.entries()) {
      const entries = await store.readStream(`log:${key}`, { direction: 'older', count: 10 });
      assert.deepEqual(
        entries.map((entry) => entry.value),
        [String(index), 'c', 'b'],
        key,
      );
      const [own] = entries;
      const [other] = await store.readStream(`log:${key}:u`, { direction: 'older', count: 1 });
      assert.ok(own && other && byId(own.id, other.id) < 0, `${key}: ${own?.id} before ${other?.id}`);
    }
  });

  test('a durable claim is acknowledged by a replica; of 50 concurrent claims one wins', async () => {
    const claims = await Promise.all(
      Array.from({ length: 50 }, () => store.putIfAbsent('used:{c2}', '1', 60, { durable: true })),
    );
    assert.equal(claims.filter(Boolean).length, 1);
    assert.equal(await store.increment('app-version:{a1}', { durable: true }), 1);
  });

  test("a durable swap runs in its tag's slot; of 50 concurrent swaps one wins", async () => {
    await store.put('family:{g9}', '{"id":"t0"}', 60);
    const swaps = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        store.swap(
          'family:{g9}',
          { from: '{"id":"t0"', to: `{"id":"t${i + 1}"}`, ttlSeconds: 60 },
          { key: 'family:{g9}:t0:used', value: '1', ttlSeconds: 60 },
          { durable: true },
        ),
      ),
    );
    assert.equal(swaps.filter(Boolean).length, 1);
    assert.deepEqual(await store.getMany(['family:{g9}']), [`{"id":"t${swaps.indexOf(true) + 1}"}`]);
  });

  test("a take runs in its tag's slot; of 50 concurrent takes one gets the value", async () => {
    await store.put('authz-request:{t9}', '{"session":"s1"}', 60);
    const takes = await Promise.all(
      Array.from({ length: 50 }, () =>
        store.takeOnce(
          'authz-request:{t9}',
          { field: 'session', equals: 's1' },
          { key: 'authz-request:{t9}:answered', value: '1', ttlSeconds: 60 },
        ),
      ),
    );
    assert.deepEqual(
      takes.filter((take) => take.outcome === 'taken'),
      [{ outcome: 'taken', value: '{"session":"s1"}' }],
    );
    assert.deepEqual(await store.getMany(['authz-request:{t9}', 'authz-request:{t9}:answered']), [null, '1']);
  });

  test('the first durable increment after a failover it did not see is served, not refused MOVED', async () => {
    const key = `app-version:{moved-${randomUUID()}}`;
    assert.equal(await store.increment(key, { durable: true }), 1);
    // The key's master hands its slots to its replica (CLUSTER FAILOVER): the store's map of the
    // slots still names the old master, which now answers MOVED.
    const slot = calculateSlot(`${prefix}${key}`);
    const [anyMaster] = await cluster.masters();
    const nodes = (await redisCli(anyMaster as number, 'CLUSTER', 'NODES')).split('\n').map((line) => line.split(' '));
    const owner = nodes.find(
      ([, , flags, , , , , , ...ranges]) =>
        flags?.includes('master') &&
        ranges.some((range) => {
          const [from, to = from] = range.split('-').map(Number);
          return slot >= (from as number) && slot <= (to as number);
        }),
    );
    const replica = nodes.find(([, , flags, masterId]) => flags?.includes('slave') && masterId === owner?.[0]);
    const portOf = (node?: string[]) => Number(node?.[1]?.split('@')[0]?.split(':')[1]);
    await redisCli(portOf(replica), 'CLUSTER', 'FAILOVER');
    await pollUntil(
      'the replica promoted',
      async () => /^master/.test(await redisCli(portOf(replica), 'ROLE')),
      10_000,
    );
    assert.equal(await store.increment(key, { durable: true }), 2);
  });
});

/** A Sentinel group of its own for a describe, and a store on it that waits for one replica. */
function sentinelStore(prefix: string) {
  const opened: { sentinel?: RedisSentinel; store?: KeyValueStore } = {};
  before(async () => {
    const sentinel = await startRedisSentinel();
    opened.sentinel = sentinel;
    opened.store = redisStore('redis://', {
      prefix,
      timeoutMs: 1_000,
      topology: { mode: 'sentinel', sentinels: addresses(sentinel.sentinels), masterName: sentinel.masterName },
      waitReplicas: 1,
    });
    await opened.store.ready();
  });
  after(async () => {
    await opened.store?.close();
    await opened.sentinel?.stop();
  });
  return opened as { sentinel: RedisSentinel; store: KeyValueStore };
}

describe('the store on a Sentinel-watched primary', { skip: needsRedisBinaries }, () => {
  const opened = sentinelStore(`test:${randomUUID()}:`);

  test('a durable claim waits for the replica: with the replica cut off it fails and is taken back', async () => {
    const { sentinel, store } = opened;
    assert.equal(await store.putIfAbsent('used:{c1}', '1', 60, { durable: true }), true);
    const resume = await sentinel.freezeReplicas();
    try {
      await assert.rejects(store.putIfAbsent('used:{c2}', '1', 60, { durable: true }), DependencyUnavailableError);
      assert.deepEqual(await store.getMany(['used:{c2}']), [null], 'the unacknowledged claim is taken back');
    } finally {
      await resume();
    }
    assert.equal(await store.putIfAbsent('used:{c2}', '1', 60, { durable: true }), true, 'and may be claimed again');
  });
});

describe('an undo on a Sentinel-watched primary', { skip: needsRedisBinaries }, () => {
  const prefix = `test:${randomUUID()}:`;
  const opened = sentinelStore(prefix);

  test('is sent again until a replica has it: a primary promoted with the swap but not its undo takes it back', async () => {
    const { sentinel, store } = opened;
    const record = '{"id":"t0"}';
    const swapped = '{"id":"t1"}';
    await store.put('family:{s1}', record, 60);
    assert.equal(
      await store.putIfAbsent('used:{s1}', '1', 60, { durable: true }),
      true,
      'the record is on the replica',
    );
    const resume = await sentinel.freezeReplicas();
    await assert.rejects(
      store.swap(
        'family:{s1}',
        { from: '{"id":"t0"', to: swapped, ttlSeconds: 60 },
        { key: 'family:{s1}:t0:used', value: '1', ttlSeconds: 60 },
        { durable: true },
      ),
      DependencyUnavailableError,
    );
    // The primary took the swap back, but no replica has the undo: the primary dies with it.
    const old = await sentinel.killPrimary();
    await resume();
    const promoted = await sentinel.waitForFailover(old);
    // As if the promoted replica had received the swap and not its undo (off Cluster, keys are sent
    // without their braces).
    await redisCli(promoted, 'SET', `${prefix}family:s1:undo`, record, 'EX', '60');
    await redisCli(promoted, 'SET', `${prefix}family:s1:t0:used`, '1', 'EX', '60');
    await redisCli(promoted, 'SET', `${prefix}family:s1`, swapped, 'EX', '60');
    await pollUntil(
      'the swap taken back on the promoted primary',
      async () => (await redisCli(promoted, 'GET', `${prefix}family:s1`)) === record,
      10_000,
    );
    assert.equal(await redisCli(promoted, 'EXISTS', `${prefix}family:s1:t0:used`), '0', 'the claim is gone too');
  });
});
