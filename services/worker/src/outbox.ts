// Outbox → deliveries: every consent event becomes one pending delivery to the app's webhook URL
// of that moment (or none when the app has no URL), exactly once.
import type { PrismaClient } from '@devplat/db';

export const outboxBatchSize = 100;

interface WaitingEvent {
  id: string;
  app_id: string;
  webhook_url: string | null;
}

/** Takes one batch of events not yet enqueued (oldest first); resolves with how many it took. */
export async function enqueueOutboxEvents(prisma: PrismaClient): Promise<number> {
  return prisma.$transaction(async (tx) => {
    // SKIP LOCKED: two workers take disjoint batches instead of waiting for each other.
    const events = await tx.$queryRaw<WaitingEvent[]>`
      SELECT e.id::text AS id, e.app_id::text AS app_id, a.webhook_url
      FROM outbox_events e JOIN apps a ON a.id = e.app_id
      WHERE e.enqueued_at IS NULL
      ORDER BY e.created_at, e.id
      LIMIT ${outboxBatchSize}
      FOR UPDATE OF e SKIP LOCKED`;
    if (events.length === 0) return 0;
    const deliveries = events.flatMap((event) =>
      event.webhook_url ? [{ eventId: event.id, appId: event.app_id, url: event.webhook_url }] : [],
    );
    if (deliveries.length > 0) await tx.webhookDelivery.createMany({ data: deliveries });
    await tx.outboxEvent.updateMany({
      where: { id: { in: events.map((event) => event.id) } },
      data: { enqueuedAt: new Date() },
    });
    return events.length;
  });
}

/**
 * Seconds since the oldest event still waiting was written: not yet enqueued, or with a delivery
 * still pending; null when none waits.
 */
export async function oldestUndeliveredAgeSeconds(prisma: PrismaClient): Promise<number | null> {
  const [row] = await prisma.$queryRaw<{ age: number | null }[]>`
    SELECT EXTRACT(EPOCH FROM now() - LEAST(
      (SELECT min(created_at) FROM outbox_events WHERE enqueued_at IS NULL),
      (SELECT min(e.created_at) FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
        WHERE d.status = 'pending')
    ))::float8 AS age`;
  return row?.age ?? null;
}
