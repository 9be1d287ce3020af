// The front door of a JSON API: what every call passes through, as one middleware because it runs
// on every call and each Koa layer costs a hot route a few percent of its throughput (measured).
import type { Context, Middleware } from 'koa';
import { toProblem } from './errors.ts';
import type { TrustedPeer } from './forwarded.ts';
import { commonHeaderList, requestIdOf, setCommonHeaders } from './headers.ts';
import { type Logger, logRequest } from './logger.ts';
import { ProblemError, sendProblem } from './problem.ts';
import type { RequestObserver } from './request-metrics.ts';

const payloadTooLarge = (limit: number) =>
  new ProblemError('PAYLOAD_TOO_LARGE', `The request body may be at most ${limit} bytes.`);

/**
 * An answer whose bytes are ready. The envelope writes it with all of its headers in one
 * `writeHead`, past Koa's response: setting headers one by one (ctx.set, ctx.type, ctx.body) cost
 * the hot routes about a tenth of their throughput (measured, docs/benchmarks.md).
 */
export interface ReadyAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  /** Headers beyond the common ones, as name, value, name, value… */
  headers?: readonly string[];
}

/** A value serialized once into a ready JSON answer. */
export function readyJson(value: unknown, status = 200): ReadyAnswer {
  return { status, contentType: 'application/json; charset=utf-8', body: Buffer.from(JSON.stringify(value)) };
}

/** Answers with `answer` (under apiEnvelope only); the handler sets nothing else on the response. */
export function sendReady(ctx: Context, answer: ReadyAnswer): void {
  ctx.status = answer.status;
  ctx.state.readyAnswer = answer;
}

/** Writes a ready answer itself, or completes Koa's answer with the common headers it lacks. */
function finish(ctx: Context, requestId: string): void {
  const answer = ctx.state.readyAnswer;
  if (answer === undefined) {
    if (!ctx.headerSent) setCommonHeaders(ctx, requestId);
    return;
  }
  ctx.respond = false;
  ctx.res.writeHead(answer.status, [
    ...commonHeaderList(requestId),
    'Content-Type',
    answer.contentType,
    'Content-Length',
    String(answer.body.length),
    ...(answer.headers ?? []),
  ]);
  ctx.res.end(answer.body);
}

export interface EnvelopeOptions {
  /** Refuse a body announced larger than this many bytes before anything reads it. */
  maxBodyBytes?: number;
  /** Records each answered request (metrics). */
  observe?: RequestObserver;
  /** Whose X-Request-ID to take: the trusted gateway's (forwarded.ts trustedPeer). */
  trustedPeer?: TrustedPeer;
}

/**
 * The common and security headers (set once the handlers are done, where they set none of their
 * own), one log line per request when info is logged, every error rendered as a Problem, ready
 * answers written in one go, (with maxBodyBytes) a body limit and (with observe) the request's
 * metrics: as one middleware.
 */
export function apiEnvelope(
  logger: Logger,
  { maxBodyBytes = Infinity, observe, trustedPeer = null }: EnvelopeOptions = {},
): Middleware {
  const logging = logger.isLevelEnabled('info');
  const timing = logging || observe !== undefined;
  return async (ctx, next) => {
    const started = timing ? performance.now() : 0;
    const requestId = requestIdOf(ctx.req, trustedPeer);
    ctx.state.requestId = requestId;
    try {
      if (Number(ctx.get('Content-Length') || 0) > maxBodyBytes) throw payloadTooLarge(maxBodyBytes);
      await next();
    } catch (error) {
      ctx.state.readyAnswer = undefined;
      sendProblem(ctx, toProblem(error, logger, requestId));
    }
    finish(ctx, requestId);
    if (logging) logRequest(logger, ctx, started);
    observe?.(ctx, (performance.now() - started) / 1000);
  };
}
