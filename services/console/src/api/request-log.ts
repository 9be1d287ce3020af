// The console API's request log of an app: GET /api/apps/{client_id}/requests, newest first a page at
// a time, and GET /api/apps/{client_id}/requests/stream, the same entries as Server-Sent Events as
// they are written, for devplat logs tail. Both take the filters status (2xx, 4xx, 5xx), operation
// (token, revoke, cities, me) and error (an OAuth error or Problem code).
//
// A stream lasts `lifetimeMs` and then ends, as the events stream does (event-stream.ts): the client
// reconnects with Last-Event-ID and resumes there. Every entry is an `event: request` with its id;
// when the filters passed entries by, an `event: position` with no data carries the place read up
// to in its id (which sets an EventSource's Last-Event-ID without dispatching anything), so a
// reconnection resumes after those too rather than starting again from the newest.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '@devplat/http';
import type { RequestLogFeed } from '@devplat/request-log';
import type { Context } from 'koa';
import { type ApiRoutes, answer, who } from './context.ts';
import { openStream } from './event-stream.ts';

export interface RequestStreamTiming {
  /** How often the log is read (one range read of each of the app's two streams). */
  pollMs: number;
  /** How long one stream lasts before the client reconnects. */
  lifetimeMs: number;
}

/**
 * Entries are written every REQUEST_LOG_FLUSH_MS (200 ms) and read every 100 ms: a call shows within
 * 300 ms on a quiet machine, and the rest of the second is slack for a busy one.
 */
export const requestStreamTiming: RequestStreamTiming = { pollMs: 100, lifetimeMs: 15_000 };

export function requestLogRoutes({ domain: { requestLog }, logger, signedIn }: ApiRoutes): void {
  signedIn('/apps/:clientId/requests', {
    GET: async (ctx) => {
      const page = await requestLog.list(who(ctx).account.id, ctx.params.clientId as string, ctx.query);
      answer(ctx, 200, { data: page.entries, next_cursor: page.nextCursor });
    },
  });
  signedIn('/apps/:clientId/requests/stream', {
    GET: async (ctx) => {
      const feed = await requestLog.follow(
        who(ctx).account.id,
        ctx.params.clientId as string,
        ctx.query,
        ctx.get('Last-Event-ID'),
      );
      streamRequests(ctx, feed, logger);
    },
  });
}

/** Streams the feed into the answer until its lifetime ends or the client leaves. */
export function streamRequests(
  ctx: Context,
  feed: RequestLogFeed,
  logger: Logger,
  timing: RequestStreamTiming = requestStreamTiming,
): void {
  const clientId = feed.app.clientId;
  const { stream, isOpen } = openStream(ctx, `request log of ${clientId}, for ${timing.lifetimeMs / 1000} s`);
  let told = feed.position();
  if (told) stream.write(`id: ${told}\nevent: position\n\n`);
  const until = Date.now() + timing.lifetimeMs;
  void (async () => {
    try {
      while (isOpen() && Date.now() < until) {
        for (const entry of await feed.next()) {
          stream.write(`id: ${entry.id}\nevent: request\ndata: ${JSON.stringify(entry)}\n\n`);
          told = entry.id;
        }
        const position = feed.position();
        if (position && position !== told) {
          stream.write(`id: ${position}\nevent: position\n\n`);
          told = position;
        }
        await sleep(timing.pollMs);
      }
    } catch (error) {
      // Redis failed mid-stream: the client reconnects and resumes, or is told 503 then.
      logger.warn({ err: error, client_id: clientId }, 'request log stream ended by an error');
    } finally {
      stream.end();
    }
  })();
}
