// What the console does with an app's events and deliveries: the test event, the list of
// deliveries, the audited replay of a failed one. Sending them is the worker's (packages/webhooks
// signs and sends; services/worker claims and records through this room's store).
import { randomBytes, randomUUID } from 'node:crypto';
import { consentTextVersion, type DeliveryStatus, type DeliveryView, userScopes } from '@devplat/contract';
import { isUuid, type PrismaClient } from '@devplat/db';
import { findApp } from '../apps/store.ts';
import { type Actor, recordAudit } from '../audit/store.ts';
import { consentGrantedPayload } from '../consents/events.ts';
import { Refusal } from '../refusal.ts';
import { deliveriesOfApp, insertDelivery, insertEvent, lockDeliveryForReplay, replayOf } from './store.ts';

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

/** ps_ and 32 base64url characters, like a real pairwise subject, but derived from nothing. */
const syntheticSubject = () => `ps_${randomBytes(24).toString('base64url')}`;

export interface TestEventSent {
  eventId: string;
  /** The delivery to the app's webhook URL; null when it has none and only devplat listen gets it. */
  deliveryId: string | null;
}

/**
 * The console's "send a test webhook": a real, signed consent.granted with a synthetic player
 * (random ps_ sub, data.test = true), queued for the app's webhook URL, delivered like any other
 * event and marked as a test in the body and the list; audited as webhook.test. Without a webhook
 * URL the event is written for `devplat listen` alone, when `listening`; otherwise that is refused
 * (NO_WEBHOOK_URL).
 */
export async function sendTestWebhook(
  prisma: PrismaClient,
  by: Actor,
  appId: string,
  { listening = false }: { listening?: boolean } = {},
): Promise<TestEventSent> {
  const app = await findApp(prisma, appId);
  if (!app) throw new Refusal('APP_NOT_FOUND', 'The app does not exist.');
  if (!app.webhookUrl && !listening)
    throw new Refusal(
      'NO_WEBHOOK_URL',
      'The app has no webhook URL and no devplat listen is running for it: set a URL first (PATCH ' +
        '/api/apps/{client_id}, or the app page), or run devplat listen <client_id> --forward-to <local url>.',
    );
  const webhookUrl = app.webhookUrl;
  const now = new Date();
  return prisma.$transaction(async (tx) => {
    // Enqueued already: the delivery is made here, so the worker's outbox pass leaves it alone.
    const event = await insertEvent(tx, {
      type: 'consent.granted',
      appId: app.id,
      createdAt: now,
      enqueuedAt: now,
      payload: consentGrantedPayload({
        clientId: app.clientId,
        sub: syntheticSubject(),
        consent: { id: randomUUID(), scopes: [...userScopes], consentTextVersion, grantedAt: now },
        test: true,
      }),
    });
    const delivery = webhookUrl
      ? await insertDelivery(tx, { eventId: event.id, appId: app.id, url: webhookUrl, isTest: true })
      : null;
    const sent = { eventId: event.id, deliveryId: delivery?.id ?? null };
    const details = { client_id: app.clientId, delivery_id: sent.deliveryId };
    await recordAudit(tx, by, 'webhook.test', { type: 'outbox_event', id: event.id, appId: app.id }, details);
    return sent;
  });
}
