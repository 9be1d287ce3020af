// What a request carries in Koa's ctx.state, typed once for every app: the envelopes (envelope.ts,
// pages.ts) set the request id, tracing the trace id, a JSON API door's request check the body it
// read, and handlers leave the client id and the contract's error code for the request's log line. A service adds its own keys the same way, in
// its own state.ts (the console's signed-in account, the API's authenticated token).
import type { ReadyAnswer } from './envelope.ts';

declare module 'koa' {
  interface DefaultState {
    /** The request's id: its X-Request-ID, set by apiEnvelope or the page front before anything else. */
    requestId: string;
    /** The trace the request is served in, when tracing is on (tracing.ts). */
    traceId?: string;
    /** The client (app) the request authenticated as, for the log line. */
    clientId?: string;
    /** The contract's error code answered (a Problem's code or an OAuth error), for the log line. */
    errorCode?: string;
    /** An answer whose bytes are ready, written by apiEnvelope in one go (sendReady). */
    readyAnswer?: ReadyAnswer;
    /** The request's JSON body, checked by the operation's document (checkedRequest, checked-requests.ts). */
    body?: Record<string, unknown>;
  }
}
