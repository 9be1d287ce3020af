// devplat listen's feed: one app's outbox events as they are written, each with the body and the
// Standard Webhooks headers a real delivery of it would carry, signed with the app's own secret.
//
// An event's created_at is its transaction's start, so one may commit after a later-started one
// has been read. The feed therefore reads back a window (`overlapMs`) behind the newest event it
// has seen, leaving out the ids it has sent; the listener leaves out ids it has forwarded, so an
// event repeated across a reconnection is forwarded once.
import type { PrismaClient } from '@devplat/db';
import { signedHeaders, webhookBody } from '@devplat/webhooks';
import { eventsOfAppSince } from './store.ts';

export interface SignedEvent {
  id: string;
  type: string;
  createdAt: Date;
  /** Exactly what a delivery sends: these headers and this body. */
  headers: Record<string, string>;
  body: string;
}

const overlapMs = 10_000;
const batch = 200;

export interface EventFeed {
  /** The events written since the last call (or since the feed began), oldest first. */
  next(): Promise<SignedEvent[]>;
}

/**
 * A feed of the app's events: from now on, or, resuming after an event it sent before, from that
 * event's time less the window (the listener leaves out what it has forwarded).
 */
export function eventFeed(
  prisma: PrismaClient,
  app: { id: string; webhookSigningSecret: string },
  resumeAfter: { createdAt: Date } | null,
): EventFeed {
  let newest = resumeAfter?.createdAt ?? new Date();
  const floor = resumeAfter ? new Date(newest.getTime() - overlapMs) : newest;
  const sent = new Map<string, number>();
  return {
    async next() {
      const from = new Date(Math.max(floor.getTime(), newest.getTime() - overlapMs));
      const fresh = await eventsOfAppSince(prisma, app.id, from, [...sent.keys()], batch);
      for (const event of fresh) {
        sent.set(event.id, event.createdAt.getTime());
        if (event.createdAt > newest) newest = event.createdAt;
      }
      // What has left the window cannot come back: forget it.
      for (const [id, time] of sent) if (time <= from.getTime()) sent.delete(id);
      return fresh.map((event) => {
        const body = webhookBody(event);
        return {
          id: event.id,
          type: event.type,
          createdAt: event.createdAt,
          headers: signedHeaders(event.id, body, app.webhookSigningSecret),
          body,
        };
      });
    },
  };
}
