// The sign-in throttle in front of the guessable operations (a developer's sign-in and registration,
// player creation): a locked attempt is refused TOO_MANY_ATTEMPTS, with when to try again.
import type { SignInAttempt, SignInThrottle } from '@devplat/throttle';
import { waitInWords } from '@devplat/throttle';
import { Refusal } from './refusal.ts';

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
