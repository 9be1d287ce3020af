// Rates (rate.ts: rateLimit, which the console's triggers use), on a store of each kind: a key's requests
// past its points in a window are refused with the seconds left in it, each key counted apart; on
// Redis, two console replicas (two connections to one Redis, as two processes have) count against
// the one limit; a store that fails refuses to say "go on".
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { type KeyValueStore, memoryStore, redisStore } from '@devplat/kv';
import { rateLimit } from '../src/index.ts';

const redisUrl = process.env.REDIS_URL?.trim();
const rate = { name: 'test-rate', points: 3, seconds: 60 };

/** Two replicas' stores: one memory store, which one process shares; or two Redis connections. */
const kinds: [string, () => [KeyValueStore, KeyValueStore]][] = [
  [
    'memory',
    () => {
      const store = memoryStore();
      return [store, store];
    },
  ],
];
if (redisUrl) {
  kinds.push([
    'redis',
    () => {
      const prefix = `test:${randomUUID()}:`;
      return [redisStore(redisUrl, { prefix, timeoutMs: 500 }), redisStore(redisUrl, { prefix, timeoutMs: 500 })];
    },
  ]);
}

for (const [kind, open] of kinds) {
  describe(`a rate on a ${kind} store`, () => {
    test('past its points in the window, refused on every replica with the seconds left; another key goes on', async (t) => {
      const [one, two] = open();
      t.after(() => Promise.all([one.close(), two.close()]));
      await Promise.all([one.ready(), two.ready()]);
      const [first, second] = [rateLimit(one, rate), rateLimit(two, rate)];
      const account = randomUUID();
      assert.deepEqual(await Promise.all([first.take(account), second.take(account), first.take(account)]), [
        null,
        null,
        null,
      ]);
      for (const replica of [first, second]) {
        const refused = await replica.take(account);
        assert.ok(
          refused && refused.retryAfterSeconds >= 1 && refused.retryAfterSeconds <= 60,
          JSON.stringify(refused),
        );
      }
      assert.equal(await second.take(randomUUID()), null, 'another account is counted apart');
      assert.equal(await rateLimit(one, { ...rate, name: 'other-rate' }).take(account), null, 'another rate too');
    });
  });
}

test('a Redis store that fails: DependencyUnavailableError, never "go on"', {
  skip: !redisUrl && 'no REDIS_URL',
}, async () => {
  const store = redisStore(redisUrl as string, { prefix: `test:${randomUUID()}:`, timeoutMs: 500 });
  await store.ready();
  await store.close();
  await assert.rejects(rateLimit(store, rate).take(randomUUID()), DependencyUnavailableError);
});
