// A 503 that a dependency caused names it in the log: PostgreSQL, Redis, the auth key set. During an
// outage every request fails the same way, so each dependency's line is written at most once a
// second per logger, carrying how many more 503s it caused since the last line.
import type { DependencyUnavailableError } from '@devplat/errors';
import type { Logger } from './logger.ts';
import { ProblemError } from './problem.ts';

const everyMs = 1_000;

interface Noted {
  at: number;
  since: number;
}

const notedBy = new WeakMap<Logger, Map<string, Noted>>();

/** Logs (warn) that a request was answered 503 because `error.dependency` failed; throttled per dependency. */
export function logUnavailable(logger: Logger, error: DependencyUnavailableError, requestId: string): void {
  let noted = notedBy.get(logger);
  if (!noted) {
    noted = new Map();
    notedBy.set(logger, noted);
  }
  const last = noted.get(error.dependency);
  const now = Date.now();
  if (last && now - last.at < everyMs) {
    last.since += 1;
    return;
  }
  noted.set(error.dependency, { at: now, since: 0 });
  const cause = error.cause instanceof Error ? error.cause.message.slice(0, 200) : undefined;
  logger.warn(
    { dependency: error.dependency, request_id: requestId, cause, more_503s: last?.since ?? 0 },
    `${error.dependency} is unavailable: answered 503`,
  );
}

/** The 503 Problem of a request whose dependency failed, its log line written (logUnavailable). */
export function unavailableProblem(
  logger: Logger,
  error: DependencyUnavailableError,
  requestId: string,
  detail = 'The service is temporarily unavailable. Try again shortly.',
): ProblemError {
  logUnavailable(logger, error, requestId);
  return new ProblemError('SERVICE_UNAVAILABLE', detail);
}
