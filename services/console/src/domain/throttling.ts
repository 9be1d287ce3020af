// The sign-in throttle in front of the console's guessable operations (sign-in, registration,
// player creation): a locked attempt is refused TOO_MANY_ATTEMPTS, with when to try again. And the
// console's own rates (triggers): so many requests of a kind a window per account, on the same
// limiter and store as the throttle, so every console replica counts against the one limit.
import { Refusal } from '@devplat/domain/refusal';
import { DependencyUnavailableError } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import type { SignInAttempt, SignInThrottle } from '@devplat/throttle';
import { limiterOn, waitInWords } from '@devplat/throttle';

/** Counts the attempt on the throttle first, and refuses it when its account or address is locked. */
export async function throttled(throttle: SignInThrottle, attempt: SignInAttempt): Promise<void> {
  const locked = await throttle.begin(attempt);
  if (!locked) return;
  const { retryAfterSeconds } = locked;
  throw new Refusal('TOO_MANY_ATTEMPTS', `Too many attempts. Try again in ${waitInWords(retryAfterSeconds)}.`, {
    retryAfterSeconds,
  });
}

/**
 * Clears the attempt's count after a change that succeeded. Best effort: the change has committed,
 * and a count left standing only expires later, so a store failure here must not fail the answer.
 */
export async function forgiven(throttle: SignInThrottle, attempt: SignInAttempt): Promise<void> {
  await throttle.succeeded(attempt).catch(() => {});
}

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
