// The console's "send a test webhook": an event of the events room made from the app (the apps
// room) with a consent.granted body (the consents room's payload), audited.
import { randomBytes, randomUUID } from 'node:crypto';
import { consentTextVersion, userScopes } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { findApp } from '../apps/store.ts';
import { type Actor, recordAudit } from '../audit/store.ts';
import { consentGrantedPayload } from '../consents/events.ts';
import { insertDelivery, insertEvent } from '../events/store.ts';
import { Refusal } from '../refusal.ts';

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
