// What the console's domain refuses, as values of its own: each door turns a refusal into its own
// answer (the JSON API a Problem, the web UI the form again with the reason, or a page). The codes
// are the console's Problem codes, so both doors name a refusal the same way.
import type { ProblemCode } from '@devplat/contract';
import { type Locked, type SignInAttempt, type SignInThrottle, waitInWords } from '@devplat/throttle';

export type RefusalCode = Extract<
  ProblemCode,
  | 'INVALID_REQUEST'
  | 'NOT_FOUND'
  | 'INVALID_CREDENTIALS'
  | 'TOO_MANY_ATTEMPTS'
  | 'GUEST_ACCOUNT'
  | 'ACCOUNT_SUSPENDED'
  | 'EMAIL_TAKEN'
  | 'USERNAME_TAKEN'
  | 'SECRET_LIMIT'
  | 'APP_DISABLED'
  | 'NO_WEBHOOK_URL'
  | 'DELIVERY_NOT_FAILED'
>;

/** A refusal with a message fit to show the developer as it is. */
export class ConsoleRefusal extends Error {
  readonly code: RefusalCode;
  constructor(code: RefusalCode, message: string) {
    super(message);
    this.name = new.target.name;
    this.code = code;
  }
}

export function refuse(code: RefusalCode, message: string): never {
  throw new ConsoleRefusal(code, message);
}

/** Too many attempts from this address or on this account: a lock, and when to try again. */
export class TooManyAttempts extends ConsoleRefusal {
  readonly retryAfterSeconds: number;
  constructor({ retryAfterSeconds }: Locked) {
    super('TOO_MANY_ATTEMPTS', `Too many attempts. Try again in ${waitInWords(retryAfterSeconds)}.`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** Counts the attempt on the throttle first, and refuses it when its account or address is locked. */
export async function throttled(throttle: SignInThrottle, attempt: SignInAttempt): Promise<void> {
  const locked = await throttle.begin(attempt);
  if (locked) throw new TooManyAttempts(locked);
}

/**
 * Clears the attempt's count after a change that succeeded. Best effort: the change has committed,
 * and a count left standing only expires later, so a store failure here must not fail the answer.
 */
export async function forgiven(throttle: SignInThrottle, attempt: SignInAttempt): Promise<void> {
  await throttle.succeeded(attempt).catch(() => {});
}
