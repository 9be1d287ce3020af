// The admin API's refusals as Problems: the one table every door shares
// (@devplat/domain/refusal-problems), with the admin's one difference stated there.
import { Refusal } from '@devplat/domain/refusal';
import { refusalProblemCode, retryAfterHeaders } from '@devplat/domain/refusal-problems';
import { ProblemError } from '@devplat/http';
import type { Middleware } from 'koa';

/** A refusal of the domain that no handler answered itself: its Problem (Retry-After for a lock). */
export const refusalsAsProblems: Middleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    throw new ProblemError(refusalProblemCode(error.code, 'admin'), error.detail, retryAfterHeaders(error));
  }
};
