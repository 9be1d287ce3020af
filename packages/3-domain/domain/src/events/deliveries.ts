// What the console does with an app's deliveries: the list, the audited replay of a failed one.
// Sending them is the worker's (packages/2-infrastructure/webhooks signs and sends; services/worker claims and
// records through this room's store). The test event spans rooms: workflows/test-webhook.ts.
import type { DeliveryStatus, DeliveryView } from '@devplat/contract';
import { isUuid, type PrismaClient } from '@devplat/db';
import { type Actor, recordAudit } from '../audit/store.ts';
import { Refusal } from '../refusal.ts';
import { deliveriesOfApp, insertDelivery, lockDeliveryForReplay, replayOf } from './store.ts';

type ListedDelivery = Awaited<ReturnType<typeof deliveriesOfApp>>[number];

function deliveryView(delivery: ListedDelivery): DeliveryView {
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
  return (await deliveriesOfApp(prisma, appId, status)).map(deliveryView);
}

/**
 * Queues the event of a failed delivery again, to the app's current webhook URL, as a new delivery
 * with replay_of set, and writes the audit record (webhook.replay) in the same transaction.
 * Returns null when no delivery with this id belongs to an app of accountId. Refuses a delivery
 * replayed already or not failed, of a disabled app, or of an app with no webhook URL.
 */
export async function replayDelivery(
  prisma: PrismaClient,
  deliveryId: string,
  actor: Actor,
): Promise<{ deliveryId: string } | null> {
  if (!isUuid(deliveryId)) return null;
  return prisma.$transaction(async (tx) => {
    const original = await lockDeliveryForReplay(tx, deliveryId);
    if (!original || original.app.accountId !== actor.accountId) return null;
    const earlier = await replayOf(tx, original.id);
    if (earlier) throw new Refusal('DELIVERY_REPLAYED', `This delivery was replayed already, as ${earlier}.`);
    if (original.app.status !== 'active') {
      throw new Refusal('APP_DISABLED', 'The app is disabled: its deliveries cannot be replayed.');
    }
    if (original.status !== 'failed') {
      throw new Refusal(
        'DELIVERY_NOT_FAILED',
        `Only a failed delivery can be replayed; this one is ${original.status}.`,
      );
    }
    if (!original.app.webhookUrl) {
      throw new Refusal(
        'NO_WEBHOOK_URL',
        'The app has no webhook URL any more: set one first (PATCH /api/apps/{client_id}, or the app page).',
      );
    }
    const replay = await insertDelivery(tx, {
      eventId: original.eventId,
      appId: original.appId,
      url: original.app.webhookUrl,
      replayOf: original.id,
      isTest: original.isTest,
    });
    await recordAudit(
      tx,
      actor,
      'webhook.replay',
      { type: 'webhook_delivery', id: original.id, appId: original.appId },
      { new_delivery_id: replay.id, event_id: original.eventId, event_type: original.event.type },
    );
    return { deliveryId: replay.id };
  });
}
