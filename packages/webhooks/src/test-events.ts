// The console's "send a test webhook": a real, signed consent.granted for a player who does not
// exist, delivered like any other event and marked as a test in the body and in the list.
import { randomBytes, randomUUID } from 'node:crypto';
import { consentTextVersion, userScopes } from '@devplat/contract';
import type { InTransaction, PrismaClient } from '@devplat/db';
import { findApp } from '@devplat/domain/apps';
import { consentGrantedPayload } from '@devplat/domain/consents';
import { Refusal } from '@devplat/domain/refusal';

/** ps_ and 32 base64url characters, like a real pairwise subject, but derived from nothing. */
const syntheticSubject = () => `ps_${randomBytes(24).toString('base64url')}`;

export interface TestEventSent {
  eventId: string;
  /** The delivery to the app's webhook URL; null when it has none and only devplat listen gets it. */
  deliveryId: string | null;
}

/**
 * A signed test consent.granted event with a synthetic player (random ps_ sub, data.test = true),
 * queued for the app's webhook URL, with what else must commit with it (its audit record). Without
 * a webhook URL the event is written for `devplat listen` alone, when `listening`; otherwise that
 * is refused (NO_WEBHOOK_URL).
 */
export async function sendTestWebhook(
  prisma: PrismaClient,
  appId: string,
  alsoInTransaction?: InTransaction<TestEventSent>,
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
    const event = await tx.outboxEvent.create({
      data: {
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
      },
    });
    const delivery = webhookUrl
      ? await tx.webhookDelivery.create({ data: { eventId: event.id, appId: app.id, url: webhookUrl, isTest: true } })
      : null;
    const sent = { eventId: event.id, deliveryId: delivery?.id ?? null };
    await alsoInTransaction?.(tx, sent);
    return sent;
  });
}
