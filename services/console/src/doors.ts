// What the console's two doors (the JSON API and the web UI) share in front of their routes. Each
// turns errors into its own answer: the API a problem+json, the web UI's page stack a page.
import type { ProblemCode } from '@devplat/contract';
import { Refusal, type RefusalCode } from '@devplat/domain/refusal';
import { ProblemError } from '@devplat/http';
import type { Middleware } from 'koa';

/** Sandbox only: in production, or while the platform is off, every path answers this. */
export const switchedOff: Middleware = () => {
  throw new ProblemError(
    'FEATURE_DISABLED',
    'The developer console is sandbox only and is switched off in this environment.',
  );
};

/**
 * The console's one table from the domain's refusals to Problem codes (the status is the code's,
 * contract catalogue). The JSON API answers the Problem; a web form shows its detail at its status.
 */
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
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  TOO_MANY_ATTEMPTS: 'TOO_MANY_ATTEMPTS',
  TOO_MANY_REQUESTS: 'TOO_MANY_REQUESTS',
  GUEST_ACCOUNT: 'GUEST_ACCOUNT',
  ACCOUNT_SUSPENDED: 'ACCOUNT_SUSPENDED',
  EMAIL_TAKEN: 'EMAIL_TAKEN',
  USERNAME_TAKEN: 'USERNAME_TAKEN',
  SECRET_LIMIT: 'SECRET_LIMIT',
  APP_DISABLED: 'APP_DISABLED',
  // The developer meets it as any stopped app (409 APP_DISABLED); the detail says who stopped it.
  APP_SUSPENDED: 'APP_DISABLED',
  NO_WEBHOOK_URL: 'NO_WEBHOOK_URL',
  DELIVERY_NOT_FAILED: 'DELIVERY_NOT_FAILED',
  // A replayed delivery is no longer the failed one: the same answer as any other not failed.
  DELIVERY_REPLAYED: 'DELIVERY_NOT_FAILED',
};

/** The Problem a refusal answers as, with Retry-After when it says when to try again. */
export function refusalProblem(refusal: Refusal): ProblemError {
  const { retryAfterSeconds } = refusal;
  const headers: Record<string, string> =
    retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) };
  return new ProblemError(refusalProblems[refusal.code], refusal.detail, headers);
}

/** A refusal of the domain that no handler answered itself: its Problem. */
export const refusalsAsProblems: Middleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    throw refusalProblem(error);
  }
};
