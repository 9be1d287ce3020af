import { DependencyUnavailableError } from '@devplat/errors';
import { Redis } from 'ioredis';
import type { KeyValueStore } from './store.ts';

/**
 * Redis through ioredis, failing fast: no offline queue and one retry, so a request never waits
 * on a dead Redis and never succeeds without its write.
 */
export function redisStore(url: string, prefix = 'devplat:'): KeyValueStore {
  const redis = new Redis(url, {
    keyPrefix: prefix,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
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
  return {
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
    ready: async (timeoutMs = 2_000) => {
      if (redis.status === 'ready') return;
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          redis.off('ready', done);
          resolve();
        };
        const timer = setTimeout(done, timeoutMs);
        redis.once('ready', done);
      });
    },
    close: async () => {
      redis.disconnect();
    },
  };
}
