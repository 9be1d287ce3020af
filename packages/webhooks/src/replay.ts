// The console's audited replay of a failed delivery.
import { type Actor, audit, isUuid, type PrismaClient } from '@devplat/db';
import { Refusal } from '@devplat/domain/refusal';

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
    const original = await tx.webhookDelivery.findUnique({
      where: { id: deliveryId },
      include: { app: true, event: { select: { type: true } } },
    });
    if (!original || original.app.accountId !== actor.accountId) return null;
    // Two replays of one delivery at once: the second waits here and then finds the first's replay.
    await tx.$queryRaw`SELECT id FROM webhook_deliveries WHERE id = ${original.id}::uuid FOR UPDATE`;
    const earlier = await tx.webhookDelivery.findFirst({ where: { replayOf: original.id }, select: { id: true } });
    if (earlier) {
      throw new Refusal('DELIVERY_REPLAYED', `This delivery was replayed already, as ${earlier.id}.`);
    }
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
    const replay = await tx.webhookDelivery.create({
      data: {
        eventId: original.eventId,
        appId: original.appId,
        url: original.app.webhookUrl,
        replayOf: original.id,
        isTest: original.isTest,
      },
    });
    await audit(
      tx,
      actor,
      'webhook.replay',
      { type: 'webhook_delivery', id: original.id },
      { new_delivery_id: replay.id, event_id: original.eventId, event_type: original.event.type },
    );
    return { deliveryId: replay.id };
  });
}
