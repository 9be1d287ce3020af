// What the console's two doors (the JSON API and the web UI) share in front of their routes. Each
// turns errors into its own answer: the API a problem+json, the web UI's page stack a page.
import { Refusal } from '@devplat/domain/refusal';
import { refusalProblemCode, retryAfterHeaders } from '@devplat/domain/refusal-problems';
import { ProblemError } from '@devplat/http';
import type { Middleware } from 'koa';

/** Sandbox only: in production, or while the platform is off, every path answers this. */
export const switchedOff: Middleware = () => {
  throw new ProblemError(
    'FEATURE_DISABLED',
    'The developer console is sandbox only and is switched off in this environment.',
  );
};

/** The Problem a refusal answers as (one table for every door: @devplat/domain/refusal-problems). */
export const refusalProblem = (refusal: Refusal): ProblemError =>
  new ProblemError(refusalProblemCode(refusal.code, 'console'), refusal.detail, retryAfterHeaders(refusal));

/** A refusal of the domain that no handler answered itself: its Problem. */
export const refusalsAsProblems: Middleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    throw refusalProblem(error);
  }
};
