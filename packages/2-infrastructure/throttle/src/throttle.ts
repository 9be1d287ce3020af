import { DependencyUnavailableError } from '@devplat/errors';
import type { KeyValueStore } from '@devplat/kv';
import { accountKey } from './account.ts';
import { countAttempt, doubling, type Limit } from './limit.ts';
import { limiterOn } from './limiters.ts';

export interface SignInAttempt {
  /** The identifier as typed; the throttle normalises it (trim, lower case). */
  account: string;
  /** The client's IP address. */
  address: string;
}

export interface Locked {
  /** Whole seconds, at least 1. */
  retryAfterSeconds: number;
}

export interface SignInThrottle {
  /**
   * Counts an attempt before its password is checked. Locked => the caller must answer 429/plain
   * message WITHOUT checking the password. Rejects with DependencyUnavailableError when the store
   * fails: never "not locked" on a failure.
   */
  begin(attempt: SignInAttempt): Promise<Locked | null>;
  /** The password was right: the account's count (and lock level) reset; the address is given its point back. */
  succeeded(attempt: SignInAttempt): Promise<void>;
}

export interface ThrottleSettings {
  /** Attempts per account within an hour before it is locked; an address has four times as many per 15 minutes. */
  attempts: number;
  /** The first lock of an account; an address's first lock is twice as long. */
  lockSeconds: number;
}

/** What a lock is on: the account tried, or the client address trying. */
export type LockKind = 'account' | 'address';

const defaults: ThrottleSettings = { attempts: 5, lockSeconds: 30 };
const minute = 60;
const hour = 60 * minute;
const day = 24 * hour;

/**
 * Password-guessing protection for one sign-in door (`name`, e.g. 'player-sign-in', keeps each
 * door's keys apart). Accounts are never looked up: known and unknown ones are counted alike.
 * `onLock` is told of each lock as it starts (for the metrics), never of the key locked.
 */
export function signInThrottle(
  store: KeyValueStore,
  name: string,
  settings: Partial<ThrottleSettings> = {},
  onLock?: (kind: LockKind) => void,
): SignInThrottle {
  const { attempts, lockSeconds } = { ...defaults, ...settings };
  if (!name) throw new RangeError('a throttle needs a name');
  if (!Number.isInteger(attempts) || attempts < 1) throw new RangeError('attempts must be a positive integer');
  if (!Number.isInteger(lockSeconds) || lockSeconds < 1) throw new RangeError('lockSeconds must be a positive integer');
  const limit = (kind: LockKind, points: number, window: number, lockLength: Limit['lockSeconds']): Limit => ({
    attempts: limiterOn(store, { keyPrefix: `throttle:${name}:${kind}`, points, duration: window }),
    // Counted up with penalty only, which never rejects, so its points play no part. Its day runs
    // from the first lock: penalty does not extend a key's expiry.
    locks: limiterOn(store, { keyPrefix: `throttle:${name}:${kind}-locks`, points: 1, duration: day }),
    lockSeconds: lockLength,
    ...(onLock && { onLock: () => onLock(kind) }),
  });
  const account = limit('account', attempts, hour, doubling(lockSeconds, 15 * minute));
  const address = limit('address', 4 * attempts, 15 * minute, doubling(2 * lockSeconds, hour));

  return {
    begin: (attempt) =>
      failClosed(async () => {
        const lockedMs = await Promise.all([
          countAttempt(account, accountKey(attempt.account)),
          countAttempt(address, attempt.address),
        ]);
        const longest = Math.max(...lockedMs);
        return longest > 0 ? { retryAfterSeconds: Math.max(1, Math.ceil(longest / 1000)) } : null;
      }),
    succeeded: (attempt) =>
      failClosed(async () => {
        const key = accountKey(attempt.account);
        await Promise.all([
          account.attempts.delete(key),
          account.locks.delete(key),
          address.attempts.reward(attempt.address),
        ]);
      }),
  };
}

/** Any store failure, whatever its shape, is Redis being unavailable: the sign-in must not go on. */
async function failClosed<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (cause) {
    throw new DependencyUnavailableError('Redis', { cause });
  }
}
