// The front door of a JSON API: what every call passes through, as one middleware because it runs
// on every call and each Koa layer costs a hot route a few percent of its throughput (measured).
import type { Middleware } from 'koa';
import { toProblem } from './errors.ts';
import { setCommonHeaders } from './headers.ts';
import { type Logger, logRequest } from './logger.ts';
import { ProblemError, sendProblem } from './problem.ts';

const payloadTooLarge = (limit: number) =>
  new ProblemError('PAYLOAD_TOO_LARGE', `The request body may be at most ${limit} bytes.`);

export interface EnvelopeOptions {
  /** Refuse a body announced larger than this many bytes before anything reads it. */
  maxBodyBytes?: number;
}

/**
 * commonHeaders, requestLog, problemErrors and (with maxBodyBytes) a body limit, in that order, as
 * one middleware: the common and security headers, one log line per request when info is logged, every
 * error rendered as a Problem.
 */
export function apiEnvelope(logger: Logger, { maxBodyBytes = Infinity }: EnvelopeOptions = {}): Middleware {
  const logging = logger.isLevelEnabled('info');
  return async (ctx, next) => {
    const started = logging ? performance.now() : 0;
    const requestId = setCommonHeaders(ctx);
    try {
      if (Number(ctx.get('Content-Length') || 0) > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
      await next();
    } catch (error) {
      sendProblem(ctx, toProblem(error, logger, requestId));
    } finally {
      if (logging) logRequest(logger, ctx, started);
    }
  };
}
