// What the console's two doors (the JSON API and the web UI) share in front of their routes. Each
// turns errors into its own answer: the API a problem+json, the web UI's page stack a page.
import { ProblemError } from '@devplat/http';
import type { Middleware } from 'koa';
import { ConsoleRefusal, TooManyAttempts } from './domain/refusals.ts';

/** Sandbox only: in production, or while the platform is off, every path answers this. */
export const switchedOff: Middleware = () => {
  throw new ProblemError(
    'FEATURE_DISABLED',
    'The developer console is sandbox only and is switched off in this environment.',
  );
};

/** The Retry-After header of a refusal that says when to try again. */
export const retryAfter = (refusal: ConsoleRefusal): Record<string, string> =>
  refusal instanceof TooManyAttempts ? { 'Retry-After': String(refusal.retryAfterSeconds) } : {};

/** A refusal of the domain that no handler answered itself: a Problem of the same code. */
export const refusalsAsProblems: Middleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof ConsoleRefusal)) throw error;
    throw new ProblemError(error.code, error.message, retryAfter(error));
  }
};
