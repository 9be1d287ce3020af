import { type RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * Attempts on one kind of key (an account, an address): `attempts.points` of them per window, then
 * the key is locked; `locks` counts its locks in a day, and each one is twice as long as the last.
 */
export interface Limit {
  attempts: RateLimiterAbstract;
  locks: RateLimiterAbstract;
  /** The length in seconds of the key's lock number `level` (1 for the first) of the day. */
  lockSeconds(level: number): number;
  /** Told once per lock started (devplat_sign_in_locks_total). */
  onLock?: () => void;
}

/** Lock lengths from `first` seconds, doubling with each level, never above `longest`. */
export function doubling(first: number, longest: number): (level: number) => number {
  return (level) => Math.min(first * 2 ** (Math.max(level, 1) - 1), longest);
}

/**
 * Counts one attempt on key and answers how many milliseconds the key is locked: 0 when the attempt
 * may go on. Rejects with the store's error when the store fails.
 */
export async function countAttempt(limit: Limit, key: string): Promise<number> {
  const allowed = limit.attempts.points;
  const counted = await limit.attempts.consume(key).catch((rejection: unknown) => {
    if (rejection instanceof RateLimiterRes) return rejection;
    throw rejection;
  });
  if (counted.consumedPoints <= allowed) return 0;
  // The count is atomic, so of concurrent attempts exactly one is the one over the limit: it alone
  // starts the lock, and is answered with the lock's full length.
  if (counted.consumedPoints === allowed + 1) {
    const level = (await limit.locks.penalty(key)).consumedPoints;
    const seconds = limit.lockSeconds(level);
    // Rewrites the count to allowed + 1, expiring with the lock: later attempts count past it
    // (never crossing again), and the key starts afresh once the lock ends.
    await limit.attempts.block(key, seconds);
    limit.onLock?.();
    return seconds * 1000;
  }
  // Locked already, or by a concurrent attempt still writing its lock: until then the count expires
  // with the window (up to an hour), so the answer is capped by the length of the lock at the level
  // read here. The lock being started has at least that level, and starts now or later, so the
  // answer is never longer than the real lock.
  const level = (await limit.locks.get(key))?.consumedPoints ?? 1;
  return Math.min(counted.msBeforeNext, limit.lockSeconds(level) * 1000);
}
