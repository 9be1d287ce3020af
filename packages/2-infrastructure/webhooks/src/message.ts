// What a receiver gets: the body of an outbox event and the Standard Webhooks signature headers.
import { Webhook } from 'standardwebhooks';

const userAgent = 'DeveloperPlatform-Webhooks/1.0';

/**
 * The body sent for an outbox event: {"id", "type", "timestamp", "data"}, the Standard Webhooks
 * shape. `id` is the event id (also the webhook-id header), `timestamp` the event time in ISO 8601,
 * `data` the outbox payload as written with the consent change.
 */
export function webhookBody(event: { id: string; type: string; createdAt: Date; payload: unknown }): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    timestamp: event.createdAt.toISOString(),
    data: event.payload,
  });
}

/**
 * The headers of one attempt. webhook-id is the event id, the same on every retry and replay so
 * receivers can deduplicate; the timestamp and signature are made anew for each attempt (receivers
 * refuse old timestamps). Throws when the secret is not a Standard Webhooks secret.
 */
export function signedHeaders(
  eventId: string,
  body: string,
  signingSecret: string,
  now: Date = new Date(),
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'user-agent': userAgent,
    'webhook-id': eventId,
    'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
    'webhook-signature': new Webhook(signingSecret).sign(eventId, now, body),
  };
}
