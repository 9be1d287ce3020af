// What the console's domain refuses, as values of its own: each door turns a refusal into its own
// answer (the JSON API a Problem, the web UI the form again with the reason, or a page). The codes
// are the console's Problem codes, so both doors name a refusal the same way.
import type { ProblemCode } from '@devplat/contract';

export type RefusalCode = Extract<
  ProblemCode,
  | 'INVALID_REQUEST'
  | 'NOT_FOUND'
  | 'INVALID_CREDENTIALS'
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
