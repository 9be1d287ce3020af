import { type KeyValueStore, redisClientOf } from '@devplat/kv';
import { type RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  /** Seconds. */
  duration: number;
}

const memoryLimiters = new WeakMap<KeyValueStore, Map<string, RateLimiterMemory>>();

/**
 * A limiter on the store's own backend: RateLimiterRedis on a Redis store's ioredis client (its
 * connection, timeouts and key prefix), RateLimiterMemory otherwise. No insurance limiter: a store
 * failure rejects, and the throttle fails closed on it.
 */
export function limiterOn(store: KeyValueStore, options: LimiterOptions): RateLimiterAbstract {
  const redis = redisClientOf(store);
  if (redis) return new RateLimiterRedis({ storeClient: redis, ...options });
  // Throttles made twice for one door on one memory store share their counts, as they share keys in Redis.
  let limiters = memoryLimiters.get(store);
  if (!limiters) {
    limiters = new Map();
    memoryLimiters.set(store, limiters);
  }
  const id = `${options.keyPrefix} ${options.points} ${options.duration}`;
  let limiter = limiters.get(id);
  if (!limiter) {
    limiter = new RateLimiterMemory(options);
    limiters.set(id, limiter);
  }
  return limiter;
}
