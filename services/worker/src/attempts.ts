// One attempt of a claimed delivery, and its record: succeeded, retried later with backoff, or
// failed for good after the last attempt. The lease is always released.
import type { WebhookSettings } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import { type AttemptRecord, type ClaimedDelivery, recordAttempt } from '@devplat/domain/events';
import { type AttemptOutcome, sendWebhook, webhookBody } from '@devplat/webhooks';
import { retryDelayMs } from './backoff.ts';

export function sendClaimed(
  delivery: ClaimedDelivery,
  settings: WebhookSettings,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  if (delivery.signingSecret === null) {
    return Promise.resolve({ result: 'failed', statusCode: null, error: 'the app has no webhook signing secret' });
  }
  const body = webhookBody({
    id: delivery.eventId,
    type: delivery.eventType,
    createdAt: delivery.eventCreatedAt,
    payload: delivery.payload,
  });
  return sendWebhook(
    { url: delivery.url, eventId: delivery.eventId, body, signingSecret: delivery.signingSecret },
    settings,
    signal,
  );
}

function recordedChange(delivery: ClaimedDelivery, outcome: AttemptOutcome, settings: WebhookSettings): AttemptRecord {
  if (outcome.result === 'abandoned') return { lockedUntil: null };
  const attempts = delivery.attempts + 1;
  const now = new Date();
  if (outcome.result === 'delivered') {
    return {
      status: 'succeeded' as const,
      attempts,
      lastStatusCode: outcome.statusCode,
      lastError: null,
      deliveredAt: now,
      lockedUntil: null,
    };
  }
  const final = attempts >= settings.maxAttempts;
  return {
    attempts,
    lastStatusCode: outcome.statusCode,
    lastError: outcome.error,
    lockedUntil: null,
    ...(final
      ? { status: 'failed' as const }
      : { nextAttemptAt: new Date(now.getTime() + retryDelayMs(attempts, settings.backoffBaseMs)) }),
  };
}

/**
 * Records the outcome while the lease is still this worker's (a lease that expired and was taken
 * by another worker is theirs to record). An abandoned attempt only releases the lease.
 * Resolves with whether the record was written.
 */
export async function recordOutcome(
  prisma: PrismaClient,
  delivery: ClaimedDelivery,
  outcome: AttemptOutcome,
  settings: WebhookSettings,
): Promise<boolean> {
  return recordAttempt(prisma, delivery, recordedChange(delivery, outcome, settings));
}
