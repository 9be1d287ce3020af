// The one refusal type of the domain (after jose's errors.ts): every domain operation that declines
// a request throws a Refusal with a typed code and a detail fit to show as it is. Each door maps the
// code in one table of its own: the console API to a Problem, the console's pages to the form again
// or a page, the admin command to an exit code. Recognised by `instanceof` and `code`, never by text.

/** Why a domain operation declined; finer than any door's codes, which each map these. */
export type RefusalCode =
  // The request itself
  | 'INVALID_INPUT'
  | 'TOO_MANY_REDIRECT_URIS'
  | 'INVALID_REDIRECT_URI'
  | 'INVALID_SCOPES'
  | 'UNKNOWN_SCOPE'
  | 'WEBHOOK_URL_REFUSED'
  // What it names does not exist (or is not the caller's: answered alike)
  | 'ACCOUNT_NOT_FOUND'
  | 'APP_NOT_FOUND'
  | 'SECRET_NOT_FOUND'
  | 'PLAYER_NOT_FOUND'
  | 'DELIVERY_NOT_FOUND'
  | 'API_KEY_NOT_FOUND'
  | 'CONSENT_NOT_FOUND'
  // Accounts and players
  | 'INVALID_CREDENTIALS'
  | 'TOO_MANY_ATTEMPTS'
  | 'TOO_MANY_REQUESTS'
  | 'GUEST_ACCOUNT'
  | 'ACCOUNT_SUSPENDED'
  | 'EMAIL_TAKEN'
  | 'USERNAME_TAKEN'
  // The state of an app or a delivery
  | 'SECRET_LIMIT'
  | 'API_KEY_LIMIT'
  | 'APP_DISABLED'
  /** Suspended by the platform (an operator): its developer cannot lift it. */
  | 'APP_SUSPENDED'
  | 'NO_WEBHOOK_URL'
  | 'DELIVERY_NOT_FAILED'
  | 'DELIVERY_REPLAYED';

export interface RefusalOptions extends ErrorOptions {
  /** When trying again may succeed (TOO_MANY_ATTEMPTS, TOO_MANY_REQUESTS): doors that can say so do (Retry-After). */
  retryAfterSeconds?: number;
}

/**
 * A request the domain declines. Thrown, never returned: a refusal inside a transaction must roll
 * it back, and every door catches it in one place.
 */
export class Refusal extends Error {
  readonly code: RefusalCode;
  /** Why, in words for the developer or operator, shown as it is. */
  readonly detail: string;
  readonly retryAfterSeconds?: number;

  constructor(code: RefusalCode, detail: string, { retryAfterSeconds, ...options }: RefusalOptions = {}) {
    super(detail, options);
    this.name = new.target.name;
    this.code = code;
    this.detail = detail;
    if (retryAfterSeconds !== undefined) this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function refuse(code: RefusalCode, detail: string, options?: RefusalOptions): never {
  throw new Refusal(code, detail, options);
}
