// The admin API's one table from the domain's refusals to Problem codes (the status is the code's,
// contract catalogue), as the console's doors.ts is for the console API.
import type { ProblemCode } from '@devplat/contract';
import { Refusal, type RefusalCode } from '@devplat/domain/refusal';
import { ProblemError } from '@devplat/http';
import type { Middleware } from 'koa';

export const refusalProblems: Record<RefusalCode, ProblemCode> = {
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
  CONSENT_NOT_FOUND: 'NOT_FOUND',
  // The admin API signs no one in: its 401 is the operator token's alone, so a refused sign-in
  // that some operation passes on is the request's fault.
  INVALID_CREDENTIALS: 'INVALID_REQUEST',
  TOO_MANY_ATTEMPTS: 'TOO_MANY_ATTEMPTS',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  GUEST_ACCOUNT: 'GUEST_ACCOUNT',
  ACCOUNT_SUSPENDED: 'ACCOUNT_SUSPENDED',
  EMAIL_TAKEN: 'EMAIL_TAKEN',
  USERNAME_TAKEN: 'USERNAME_TAKEN',
  SECRET_LIMIT: 'SECRET_LIMIT',
  APP_DISABLED: 'APP_DISABLED',
  APP_SUSPENDED: 'APP_DISABLED',
  NO_WEBHOOK_URL: 'NO_WEBHOOK_URL',
  DELIVERY_NOT_FAILED: 'DELIVERY_NOT_FAILED',
  DELIVERY_REPLAYED: 'DELIVERY_NOT_FAILED',
};

/** A refusal of the domain that no handler answered itself: its Problem (Retry-After for a lock). */
export const refusalsAsProblems: Middleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    const { code, detail, retryAfterSeconds } = error;
    const headers: Record<string, string> =
      retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) };
    throw new ProblemError(refusalProblems[code], detail, headers);
  }
};
