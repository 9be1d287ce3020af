import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { type KeyValueStore, memoryStore, redisClientOf, redisStore } from '@devplat/kv';
import { startFaultProxy } from '@devplat/test/fault-proxy';
import { type Locked, type SignInAttempt, type SignInThrottle, signInThrottle } from '../src/index.ts';

// The tests' own database, so that nothing they write can meet the platform's keys.
const redisUrl = (() => {
  const configured = process.env.REDIS_URL?.trim();
  if (!configured) return undefined;
  const url = new URL(configured);
  url.pathname = '/9';
  return url.toString();
})();
const prefix = `test:throttle:${randomUUID()}:`;

const stores: [string, () => KeyValueStore][] = [['memory', memoryStore]];
if (redisUrl) stores.push(['redis', () => redisStore(redisUrl, { prefix, timeoutMs: 2_000 })]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** A door of its own for each test, so that no test sees another's counts. */
const door = () => `door-${randomUUID()}`;
const at = (account: string, address = '203.0.113.7'): SignInAttempt => ({ account, address });

async function passes(throttle: SignInThrottle, attempt: SignInAttempt, times: number): Promise<void> {
  for (let i = 1; i <= times; i += 1) assert.equal(await throttle.begin(attempt), null, `attempt ${i} passes`);
}

for (const [kind, open] of stores) {
  describe(`sign-in throttle on a ${kind} store`, { concurrency: true }, () => {
    const store = open();
    before(() => store.ready());
    after(() => store.close());

    test('lets the first attempts through and locks the next for lockSeconds', async () => {
      const throttle = signInThrottle(store, door());
      await passes(throttle, at('ada@example.com'), 5);
      assert.deepEqual(await throttle.begin(at('ada@example.com')), { retryAfterSeconds: 30 });
      const again = await throttle.begin(at('ada@example.com'));
      assert.ok(again && again.retryAfterSeconds >= 1 && again.retryAfterSeconds <= 30, JSON.stringify(again));
      assert.equal(await throttle.begin(at('grace@example.com')), null, 'another account is not locked');
    });

    test('a lock ends with fresh attempts, and the next lock within the day is twice as long', async () => {
      const throttle = signInThrottle(store, door(), { attempts: 2, lockSeconds: 1 });
      await passes(throttle, at('ada@example.com'), 2);
      assert.deepEqual(await throttle.begin(at('ada@example.com')), { retryAfterSeconds: 1 });
      await sleep(1_100);
      await passes(throttle, at('ada@example.com'), 2);
      assert.deepEqual(await throttle.begin(at('ada@example.com')), { retryAfterSeconds: 2 });
    });

    test('a success resets the account: its count and its lock level', async () => {
      const throttle = signInThrottle(store, door(), { attempts: 3, lockSeconds: 1 });
      const ada = at('ada@example.com');
      await passes(throttle, ada, 3);
      assert.deepEqual(await throttle.begin(ada), { retryAfterSeconds: 1 });
      await sleep(1_100);
      await passes(throttle, ada, 2);
      await throttle.succeeded(ada);
      await passes(throttle, ada, 3);
      assert.deepEqual(await throttle.begin(ada), { retryAfterSeconds: 1 }, 'the first lock again, not the second');
    });

    test('identifiers count as typed but normalised, and known or unknown alike', async () => {
      const throttle = signInThrottle(store, door());
      for (const account of [
        'Ada@Example.com ',
        'ada@example.com',
        ' ADA@example.COM',
        'ada@example.com',
        'Ada@Example.com ',
      ]) {
        assert.equal(await throttle.begin(at(account)), null);
      }
      assert.deepEqual(await throttle.begin(at('ada@example.com')), { retryAfterSeconds: 30 });

      const answers = async (account: string) => {
        const seen: (Locked | null)[] = [];
        for (let i = 0; i < 7; i += 1) seen.push(await throttle.begin(at(account, `198.51.100.${i}`)));
        return seen.map((answer) => answer && answer.retryAfterSeconds > 0);
      };
      // The throttle never looks accounts up: an account that exists and one that does not are answered alike.
      assert.deepEqual(await answers('grace@example.com'), await answers('nobody-at-all@example.com'));
    });

    test('an address is locked across accounts after four times the attempts', async () => {
      const throttle = signInThrottle(store, door(), { attempts: 2 });
      for (let i = 0; i < 8; i += 1) assert.equal(await throttle.begin(at(`user${i}@example.com`)), null);
      assert.deepEqual(await throttle.begin(at('user8@example.com')), { retryAfterSeconds: 60 });
      assert.equal(await throttle.begin(at('user8@example.com', '192.0.2.1')), null, 'another address is not locked');
    });

    test('a success gives the address its point back', async () => {
      const throttle = signInThrottle(store, door(), { attempts: 2 });
      for (let i = 0; i < 8; i += 1) {
        const attempt = at(`user${i}@example.com`);
        assert.equal(await throttle.begin(attempt), null);
        if (i === 0) await throttle.succeeded(attempt);
      }
      assert.equal(await throttle.begin(at('user8@example.com')), null);
      assert.deepEqual(await throttle.begin(at('user9@example.com')), { retryAfterSeconds: 60 });
    });

    test('of 50 concurrent attempts on one account exactly `attempts` go through, under one lock', async () => {
      const throttle = signInThrottle(store, door(), { attempts: 5, lockSeconds: 1 });
      // From 50 addresses, so that only the account's limit is in play.
      const guesses = () =>
        Promise.all(Array.from({ length: 50 }, (_, i) => throttle.begin(at('ada@example.com', `10.0.0.${i}`))));
      const answers = await guesses();
      assert.equal(answers.filter((answer) => answer === null).length, 5);
      for (const answer of answers.filter((answer) => answer !== null)) {
        assert.equal(answer.retryAfterSeconds, 1, 'never longer than the lock');
      }
      await sleep(1_100);
      // One lock was started, not several: the next is the second, of twice the length.
      const next = await guesses();
      assert.equal(next.filter((answer) => answer === null).length, 5);
      assert.ok(next.some((answer) => answer?.retryAfterSeconds === 2));
      assert.ok(next.every((answer) => answer === null || answer.retryAfterSeconds <= 2));
    });

    test('throttles of one door on one store share their counts', async () => {
      const name = door();
      await passes(signInThrottle(store, name), at('ada@example.com'), 5);
      assert.deepEqual(await signInThrottle(store, name).begin(at('ada@example.com')), { retryAfterSeconds: 30 });
      assert.equal(await signInThrottle(store, door()).begin(at('ada@example.com')), null, 'other doors do not');
    });
  });
}

describe('sign-in throttle keys in Redis', { skip: redisUrl ? false : 'needs a real Redis (REDIS_URL)' }, () => {
  test('hold no account identifier in clear', async () => {
    const store = redisStore(redisUrl as string, { prefix, timeoutMs: 2_000 });
    try {
      await store.ready();
      const throttle = signInThrottle(store, door(), { attempts: 1 });
      await throttle.begin(at('Secret.Person@Example.com'));
      assert.ok(await throttle.begin(at('Secret.Person@Example.com')), 'locked, so every kind of key is written');
      const keys = await redisClientOf(store)!.keys(`${prefix}*`);
      const hash = createHash('sha256').update('secret.person@example.com').digest('hex');
      assert.ok(
        keys.some((key) => key.includes(hash)),
        keys.join('\n'),
      );
      for (const key of keys) assert.doesNotMatch(key.toLowerCase(), /secret|person|example\.com/);
    } finally {
      await store.close();
    }
  });
});

describe('sign-in throttle on a failing Redis', () => {
  test('fails closed with DependencyUnavailableError when Redis is unreachable', async () => {
    const store = redisStore('redis://127.0.0.1:1', { timeoutMs: 200 });
    try {
      const throttle = signInThrottle(store, door());
      const started = Date.now();
      await assert.rejects(throttle.begin(at('ada@example.com')), DependencyUnavailableError);
      await assert.rejects(throttle.succeeded(at('ada@example.com')), DependencyUnavailableError);
      assert.ok(Date.now() - started < 1_500, 'answers within about a second');
    } finally {
      await store.close();
    }
  });

  test('fails closed when Redis stops answering', { skip: redisUrl ? false : 'needs a real Redis' }, async () => {
    const proxy = await startFaultProxy({ port: Number(new URL(redisUrl as string).port || 6379) });
    const store = redisStore(proxy.proxied(redisUrl as string), { prefix, timeoutMs: 200 });
    try {
      // Connected first, however slow the machine: ready() alone gives up after the 200 ms bound.
      await store.ready(5_000);
      const throttle = signInThrottle(store, door());
      assert.equal(await throttle.begin(at('ada@example.com')), null);
      await proxy.stall();
      const failure = await throttle.begin(at('ada@example.com')).then(
        () => assert.fail('a stalled Redis must not let an attempt through'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof DependencyUnavailableError);
      assert.equal(failure.dependency, 'Redis');
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});

after(async () => {
  if (!redisUrl) return;
  // Raw keys, without the store's prefix, to find and remove everything this run wrote.
  const cleaner = redisStore(redisUrl, { prefix: '', timeoutMs: 2_000 });
  try {
    await cleaner.ready();
    const redis = redisClientOf(cleaner)!;
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(keys);
  } finally {
    await cleaner.close();
  }
});
