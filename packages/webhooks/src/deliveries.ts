// The console's view of an app's deliveries.
import type { DeliveryStatus, DeliveryView } from '@devplat/contract';
import type { OutboxEvent, PrismaClient, WebhookDelivery } from '@devplat/db';

const listLimit = 100;

function deliveryView(delivery: WebhookDelivery & { event: Pick<OutboxEvent, 'type'> }): DeliveryView {
  return {
    delivery_id: delivery.id,
    event_id: delivery.eventId,
    event_type: delivery.event.type,
    url: delivery.url,
    status: delivery.status,
    attempts: delivery.attempts,
    last_status_code: delivery.lastStatusCode,
    last_error: delivery.lastError,
    created_at: delivery.createdAt.toISOString(),
    next_attempt_at: delivery.status === 'pending' ? delivery.nextAttemptAt.toISOString() : null,
    delivered_at: delivery.deliveredAt?.toISOString() ?? null,
    replay_of: delivery.replayOf,
    test: delivery.isTest,
  };
}

/**
 * Deliveries of one app, newest first, at most 100, optionally only one status. The failed list
 * is what still needs the developer: a failed delivery that was replayed leaves it (its replay,
 * pending, succeeded or failed in turn, is listed instead).
 */
export async function listDeliveries(
  prisma: PrismaClient,
  appId: string,
  status?: DeliveryStatus,
): Promise<DeliveryView[]> {
  const replayed =
    status === 'failed'
      ? await prisma.webhookDelivery.findMany({
          where: { appId, replayOf: { not: null } },
          select: { replayOf: true },
        })
      : [];
  const deliveries = await prisma.webhookDelivery.findMany({
    where: {
      appId,
      ...(status ? { status } : {}),
      ...(replayed.length ? { id: { notIn: replayed.map((replay) => replay.replayOf as string) } } : {}),
    },
    include: { event: { select: { type: true } } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: listLimit,
  });
  return deliveries.map(deliveryView);
}
