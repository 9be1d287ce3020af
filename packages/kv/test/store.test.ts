import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { type KeyValueStore, memoryStore, redisStore } from '../src/index.ts';

const redisUrl = process.env.REDIS_URL?.trim();
const stores: [string, () => KeyValueStore][] = [['memory', memoryStore]];
if (redisUrl) stores.push(['redis', () => redisStore(redisUrl, `test:${randomUUID()}:`)]);

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

    test('sets collect members', async () => {
      await store.addToSet('s', 'x', 60);
      await store.addToSet('s', 'y', 30);
      assert.deepEqual((await store.members('s')).sort(), ['x', 'y']);
      assert.deepEqual(await store.members('nothing'), []);
    });
  });
}

describe('an unreachable Redis', () => {
  test('fails every operation fast with DependencyUnavailableError', async () => {
    const store = redisStore('redis://127.0.0.1:1');
    try {
      const started = Date.now();
      await assert.rejects(store.getMany(['a']), DependencyUnavailableError);
      await assert.rejects(store.putIfAbsent('a', '1', 1), DependencyUnavailableError);
      assert.ok(Date.now() - started < 3_000);
    } finally {
      await store.close();
    }
  });
});
