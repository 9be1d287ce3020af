import { DependencyUnavailableError, UnstorableValueError } from '@devplat/errors';
import type { Logger } from './logger.ts';
import { ProblemError } from './problem.ts';
import { RequestAbortedError } from './request-cut-off.ts';
import { unavailableProblem } from './unavailable-log.ts';

export { DependencyUnavailableError, UnstorableValueError };

/**
 * A value the database cannot store that no door refused before its query (the boundary's
 * backstop caught it): the caller's bad value, 400. Logged as a warning, never an error: it pages
 * nobody, yet it names a door that should have answered as its contract says.
 */
export function unstorableValueProblem(error: UnstorableValueError, logger: Logger, requestId: string): ProblemError {
  logger.warn({ request_id: requestId, kind: error.kind }, 'unstorable value reached the database boundary');
  return new ProblemError('MALFORMED_REQUEST', `The request holds a value the platform cannot take: ${error.message}.`);
}

/**
 * The Problem an error answers as, failing closed. ProblemErrors stand as they are; a body its
 * client cut off answers 400, unlogged (the request's line says 499); Koa's own HTTP errors keep
 * their status with a generic detail; a value the database cannot store answers 400; backing-store
 * failures answer 503; anything else is a 500 whose detail says nothing about the cause. The cause
 * of a 500 or 503 goes to the log only.
 */
export function toProblem(error: unknown, logger: Logger, requestId: string): ProblemError {
  if (error instanceof ProblemError) return error;
  if (error instanceof UnstorableValueError) return unstorableValueProblem(error, logger, requestId);
  if (error instanceof RequestAbortedError) {
    return new ProblemError('MALFORMED_REQUEST', 'The request body did not arrive whole.');
  }
  const status = (error as { status?: unknown; expose?: unknown })?.status;
  if (typeof status === 'number' && status === 413) {
    return new ProblemError('PAYLOAD_TOO_LARGE', 'The request body is larger than this endpoint accepts.');
  }
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return new ProblemError('MALFORMED_REQUEST', 'The request could not be understood.');
  }
  if (error instanceof DependencyUnavailableError) return unavailableProblem(logger, error, requestId);
  logger.error({ request_id: requestId, err: describe(error) }, 'unhandled error');
  return new ProblemError('INTERNAL_ERROR', 'An internal error occurred. Quote the request_id when you report it.');
}

// Name, message and stack only: never the request, a token or a secret that an error object
// might have picked up along the way.
function describe(error: unknown) {
  if (!(error instanceof Error)) return { message: String(error) };
  return { name: error.name, message: error.message.slice(0, 500), stack: error.stack };
}
