import { DependencyUnavailableError } from '@devplat/errors';
import { Redis } from 'ioredis';
import type { KeyValueStore } from './store.ts';

export interface RedisStoreOptions {
  /** Prepended to every key. */
  prefix?: string;
  /** REDIS_TIMEOUT_MS (packages/config): the bound on a command and on a connection attempt. */
  timeoutMs: number;
}

// Kept off the KeyValueStore interface: only a few packages (such as throttle, which runs
// rate-limiter-flexible on it) need the client itself, and they reach it through redisClientOf.
const clients = new WeakMap<KeyValueStore, Redis>();

/**
 * The ioredis client behind a store made by redisStore, with its key prefix, timeouts and failure
 * behaviour; null for any other store. Errors from commands sent on it directly are ioredis errors,
 * not DependencyUnavailableError: the caller maps them.
 */
export function redisClientOf(store: KeyValueStore): Redis | null {
  return clients.get(store) ?? null;
}

/**
 * Redis through ioredis, failing fast: no offline queue and one retry, so a request never waits
 * on a dead Redis and never succeeds without its write. Every command ends within the bound, and a
 * connection that stops answering heals by itself: with commands outstanding and nothing received
 * for that long it is destroyed and a new one made (`socketTimeout`), so replies lost on the old
 * one cannot keep every later command waiting behind them.
 */
export function redisStore(url: string, { prefix = 'devplat:', timeoutMs }: RedisStoreOptions): KeyValueStore {
  const redis = new Redis(url, {
    keyPrefix: prefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // A command that timed out may have run or not: it has failed its caller (who may retry), so
    // it is never sent again on the new connection.
    autoResendUnfulfilledCommands: false,
    // Reconnect soon after Redis answers again, however long it was away.
    retryStrategy: (attempt) => Math.min(attempt * 50, 1_000),
    lazyConnect: false,
  });
  redis.on('error', () => {}); // surfaced per command as DependencyUnavailableError
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (cause) {
      throw new DependencyUnavailableError('Redis', { cause });
    }
  };
  const store: KeyValueStore = {
    put: (key, value, ttl) =>
      guard(async () => void (ttl ? await redis.set(key, value, 'EX', ttl) : await redis.set(key, value))),
    putIfAbsent: (key, value, ttl) =>
      guard(
        async () => (ttl ? await redis.set(key, value, 'EX', ttl, 'NX') : await redis.set(key, value, 'NX')) === 'OK',
      ),
    increment: (key) => guard(() => redis.incr(key)),
    getMany: (keys) => guard(() => (keys.length ? redis.mget(keys) : Promise.resolve([]))),
    delete: (keys) => guard(async () => void (keys.length && (await redis.del(keys)))),
    addToSet: (key, member, ttl) =>
      guard(async () => {
        const multi = redis.multi().sadd(key, member);
        if (ttl) multi.expire(key, ttl, 'GT').expire(key, ttl, 'NX');
        const results = await multi.exec();
        const failed = results?.find(([error]) => error);
        if (!results || failed) throw failed?.[0] ?? new Error('transaction discarded');
      }),
    members: (key) => guard(() => redis.smembers(key)),
    ping: () => guard(async () => void (await redis.ping())),
    ready: async (waitMs = timeoutMs) => {
      if (redis.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, waitMs);
        redis.once('ready', done);
      });
    },
    close: async () => {
      redis.disconnect();
    },
  };
  clients.set(store, redis);
  return store;
}
