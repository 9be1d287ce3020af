export { type AddressKind, addressKind } from './addresses.ts';
export { type EventFeed, eventFeed, type SignedEvent } from './event-feed.ts';
export { signedHeaders, webhookBody } from './message.ts';
export { type AttemptOutcome, type SendSettings, sendWebhook, type WebhookMessage } from './sender.ts';
export { isLocalWebhookUrl, webhookUrlProblem } from './url-rules.ts';
