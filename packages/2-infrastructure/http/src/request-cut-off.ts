// A request whose connection ended before it arrived whole: how it is recognised and logged. Its own
// module because both the request log (logger.ts) and the error answers (errors.ts) need it.
import type { IncomingMessage } from 'node:http';

/**
 * The status a request whose client went away before its body arrived is logged and counted with:
 * nginx's 499 "client closed request". No client ever reads it; it keeps such requests out of the
 * 5xx (our failures) and apart from the 400s (answers a client did get).
 */
export const clientClosedRequest = 499;

/** The client ended the connection before the request's body arrived whole (readBody throws it). */
export class RequestAbortedError extends Error {
  constructor() {
    super('the client closed the connection before the request body arrived');
    this.name = 'RequestAbortedError';
  }
}

/**
 * Whether the connection ended before the request arrived whole, the body unread or half read. Node
 * then aborts the request with ECONNRESET, whether the client closed the connection, reset it, or
 * sent bytes its parser refused (a malformed chunk: server.ts answers that one 400 itself).
 */
export function requestCutOff(req: IncomingMessage): boolean {
  return !req.complete && (req.errored as NodeJS.ErrnoException | null)?.code === 'ECONNRESET';
}
