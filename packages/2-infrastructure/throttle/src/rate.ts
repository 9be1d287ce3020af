// A rate: so many requests of a kind a window per key (the console's triggers, per account), on the
// same limiter and store as the sign-in throttle, so every replica counts against the one limit.
import { DependencyUnavailableError } from '@devplat/errors';
import type { KeyValueStore } from '@devplat/kv';
import { limiterOn } from './limiters.ts';

/** A rate: at most `points` requests in each window of `seconds`, counted from a key's first. */
export interface Rate {
  /** Keeps each kind's counts apart in the store, e.g. 'console-triggers'. */
  name: string;
  points: number;
  seconds: number;
}

/** Over the rate: how long until the key's window ends. */
export interface RateExceeded {
  retryAfterSeconds: number;
}

export interface RateLimit {
  /**
   * Counts one request of `key` (an account id): null when it may go on, else how long to wait.
   * Rejects with DependencyUnavailableError when the store fails: never "may go on" on a failure.
   */
  take(key: string): Promise<RateExceeded | null>;
}

/** The limiter's answer when over its points (a RateLimiterRes, which is not an Error). */
const overLimit = (rejection: unknown): rejection is { msBeforeNext: number } =>
  !(rejection instanceof Error) && typeof (rejection as { msBeforeNext?: unknown } | null)?.msBeforeNext === 'number';

export function rateLimit(store: KeyValueStore, { name, points, seconds }: Rate): RateLimit {
  const limiter = limiterOn(store, { keyPrefix: `rate:${name}`, points, duration: seconds });
  return {
    async take(key) {
      try {
        await limiter.consume(key);
        return null;
      } catch (rejection) {
        if (!overLimit(rejection)) throw new DependencyUnavailableError('Redis', { cause: rejection });
        return { retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) };
      }
    },
  };
}
