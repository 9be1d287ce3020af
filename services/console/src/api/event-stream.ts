// GET /api/apps/{client_id}/events: the app's events as Server-Sent Events, for devplat listen. Each
// message carries the Standard Webhooks headers and the body of a delivery, signed with the app's
// own secret, which the CLI posts to the developer's local URL: nothing reaches the developer's
// machine from outside, and nothing needs WEBHOOK_ALLOW_LOOPBACK_HTTP.
//
// A stream lasts `lifetimeMs` and then ends; the CLI reconnects at once with Last-Event-ID and the
// feed resumes there. So a console draining for a restart waits for no stream longer than that,
// and a revoked session or a disabled account is noticed at the next reconnection.
import { PassThrough } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import type { EventFeed } from '@devplat/domain/events';
import type { Logger } from '@devplat/http';
import type { Context } from 'koa';

export interface StreamTiming {
  /** How often the feed is read (PostgreSQL, one indexed query). */
  pollMs: number;
  /** How long one stream lasts before the client reconnects. */
  lifetimeMs: number;
}

export const streamTiming: StreamTiming = { pollMs: 500, lifetimeMs: 15_000 };

/**
 * Answers with an open Server-Sent Events stream (unbuffered, never cached) that starts with a
 * retry of 1 s and `comment`; isOpen() turns false once the client has gone.
 */
export function openStream(ctx: Context, comment: string): { stream: PassThrough; isOpen: () => boolean } {
  const stream = new PassThrough();
  ctx.status = 200;
  ctx.type = 'text/event-stream';
  ctx.set('Cache-Control', 'no-store');
  // nginx (the gateway, ingress-nginx) would otherwise buffer the stream.
  ctx.set('X-Accel-Buffering', 'no');
  ctx.body = stream;
  stream.write(`retry: 1000\n: ${comment}\n\n`);
  let open = true;
  ctx.req.once('close', () => {
    open = false;
  });
  return { stream, isOpen: () => open };
}

/**
 * Streams the feed into the answer until its lifetime ends or the client leaves; `listening` is
 * called with how long to say so, at the start and then every few seconds (test events go to
 * listeners even without a webhook URL).
 */
export function streamEvents(
  ctx: Context,
  feed: EventFeed,
  { logger, listening }: { logger: Logger; listening: (forSeconds: number) => Promise<void> },
  timing = streamTiming,
): void {
  const { stream, isOpen } = openStream(ctx, `events of ${ctx.params.clientId}, for ${timing.lifetimeMs / 1000} s`);
  const until = Date.now() + timing.lifetimeMs;
  void (async () => {
    let said = 0;
    try {
      while (isOpen() && Date.now() < until) {
        if (Date.now() - said > 5_000) {
          said = Date.now();
          await listening(Math.ceil(timing.lifetimeMs / 1000) + 10);
        }
        for (const event of await feed.next()) {
          const data = {
            id: event.id,
            type: event.type,
            created_at: event.createdAt,
            headers: event.headers,
            body: event.body,
          };
          stream.write(`id: ${event.id}\nevent: webhook\ndata: ${JSON.stringify(data)}\n\n`);
        }
        await sleep(timing.pollMs);
      }
    } catch (error) {
      // PostgreSQL or Redis failed mid-stream: the client reconnects and resumes, or is told 503 then.
      logger.warn({ err: error, client_id: ctx.params.clientId }, 'event stream ended by an error');
    } finally {
      stream.end();
    }
  })();
}
