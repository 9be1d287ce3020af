// Failed authentications are slowed per client address: the first few are answered at once (a
// person mistyping), then each waits twice as long as the one before, up to a cap. An address
// forgets its failures after a quiet quarter of an hour, or at its first success. Bounded: one
// wait never exceeds the cap, and at most `maxAddresses` addresses are remembered (the least
// recently failing forgotten first). Guessing a 256-bit token is hopeless anyway; the waits keep a
// scanner or a script with a stale token from filling the log at the speed of the listener.

export interface FailedAttemptSettings {
  /** Failures answered at once. */
  free: number;
  firstDelayMs: number;
  maxDelayMs: number;
  forgetAfterMs: number;
  maxAddresses: number;
  now: () => number;
}

export const failedAttemptDefaults: FailedAttemptSettings = {
  free: 3,
  firstDelayMs: 250,
  maxDelayMs: 4_000,
  forgetAfterMs: 15 * 60_000,
  maxAddresses: 10_000,
  now: Date.now,
};

export interface FailedAttempts {
  /** Counts a failure of the address: its number (in the address's current run) and how long to wait. */
  failed(address: string): { failures: number; delayMs: number };
  /** The address authenticated: its failures are forgotten. */
  succeeded(address: string): void;
}

export function failedAttempts(settings: Partial<FailedAttemptSettings> = {}): FailedAttempts {
  const { free, firstDelayMs, maxDelayMs, forgetAfterMs, maxAddresses, now } = {
    ...failedAttemptDefaults,
    ...settings,
  };
  const addresses = new Map<string, { failures: number; last: number }>();
  return {
    failed(address) {
      const at = now();
      const known = addresses.get(address);
      const failures = known && at - known.last < forgetAfterMs ? known.failures + 1 : 1;
      // Deleted and set again: the Map's order is then the order of the last failure.
      addresses.delete(address);
      addresses.set(address, { failures, last: at });
      if (addresses.size > maxAddresses) addresses.delete(addresses.keys().next().value as string);
      const delayMs = failures <= free ? 0 : Math.min(firstDelayMs * 2 ** (failures - free - 1), maxDelayMs);
      return { failures, delayMs };
    },
    succeeded(address) {
      addresses.delete(address);
    },
  };
}
