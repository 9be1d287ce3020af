// The one table from the domain's refusals to Problem codes, for the console's doors (its JSON API
// and its pages) and the admin API; the status is the code's (contract catalogue). The doors differ
// in one entry, stated here: the admin API signs no one in (its 401 is the operator token's alone),
// so a refused sign-in that some operation passes on is the request's fault there.
import type { ProblemCode } from '@devplat/contract';
import type { Refusal, RefusalCode } from './refusal.ts';

/** The doors that answer a refusal as a Problem. */
export type ProblemDoor = 'console' | 'admin';

const problemCodes: Record<RefusalCode, ProblemCode> = {
  INVALID_INPUT: 'INVALID_REQUEST',
  TOO_MANY_REDIRECT_URIS: 'INVALID_REQUEST',
  INVALID_REDIRECT_URI: 'INVALID_REQUEST',
  INVALID_SCOPES: 'INVALID_REQUEST',
  UNKNOWN_SCOPE: 'INVALID_REQUEST',
  WEBHOOK_URL_REFUSED: 'INVALID_REQUEST',
  ACCOUNT_NOT_FOUND: 'NOT_FOUND',
  APP_NOT_FOUND: 'NOT_FOUND',
  SECRET_NOT_FOUND: 'NOT_FOUND',
  PLAYER_NOT_FOUND: 'NOT_FOUND',
  DELIVERY_NOT_FOUND: 'NOT_FOUND',
  API_KEY_NOT_FOUND: 'NOT_FOUND',
  CONSENT_NOT_FOUND: 'NOT_FOUND',
  // A failed sign-in at the console (401 INVALID_CREDENTIALS); the admin API's differs (below).
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  TOO_MANY_ATTEMPTS: 'TOO_MANY_ATTEMPTS',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  GUEST_ACCOUNT: 'GUEST_ACCOUNT',
  ACCOUNT_SUSPENDED: 'ACCOUNT_SUSPENDED',
  EMAIL_TAKEN: 'EMAIL_TAKEN',
  USERNAME_TAKEN: 'USERNAME_TAKEN',
  SECRET_LIMIT: 'SECRET_LIMIT',
  API_KEY_LIMIT: 'API_KEY_LIMIT',
  APP_DISABLED: 'APP_DISABLED',
  // The developer meets it as any stopped app (409 APP_DISABLED); the detail says who stopped it.
  APP_SUSPENDED: 'APP_DISABLED',
  NO_WEBHOOK_URL: 'NO_WEBHOOK_URL',
  DELIVERY_NOT_FAILED: 'DELIVERY_NOT_FAILED',
  // A replayed delivery is no longer the failed one: the same answer as any other not failed.
  DELIVERY_REPLAYED: 'DELIVERY_NOT_FAILED',
};

/** Every refusal code the domain has. */
export const refusalCodes = Object.keys(problemCodes) as RefusalCode[];

const adminDifferences: Partial<Record<RefusalCode, ProblemCode>> = { INVALID_CREDENTIALS: 'INVALID_REQUEST' };

/** The Problem code a refusal answers as at a door. */
export const refusalProblemCode = (code: RefusalCode, door: ProblemDoor): ProblemCode =>
  (door === 'admin' ? adminDifferences[code] : undefined) ?? problemCodes[code];

/** Retry-After, when the refusal says when to try again (a lock, a rate). */
export const retryAfterHeaders = ({ retryAfterSeconds }: Refusal): Record<string, string> =>
  retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) };
