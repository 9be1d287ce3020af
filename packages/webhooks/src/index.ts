export { type AddressKind, addressKind } from './addresses.ts';
export { listDeliveries } from './deliveries.ts';
export { type EventFeed, eventFeed, type SignedEvent } from './event-feed.ts';
export { signedHeaders, webhookBody } from './message.ts';
export { replayDelivery } from './replay.ts';
export { type AttemptOutcome, type SendSettings, sendWebhook, type WebhookMessage } from './sender.ts';
export { sendTestWebhook } from './test-events.ts';
export { isLocalWebhookUrl, webhookUrlProblem } from './url-rules.ts';
