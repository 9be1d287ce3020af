export { type AddressKind, addressKind } from './addresses.ts';
export {
  type ConsentGrantedPayload,
  type ConsentRevokedPayload,
  consentGrantedPayload,
  consentRevokedPayload,
} from './consent-events.ts';
export { listDeliveries } from './deliveries.ts';
export { endConsents } from './end-consents.ts';
export { type WebhookRule, WebhookRuleError } from './errors.ts';
export { type EventFeed, eventFeed, type SignedEvent } from './event-feed.ts';
export { signedHeaders, webhookBody } from './message.ts';
export { pairwiseSubject } from './pairwise.ts';
export { replayDelivery } from './replay.ts';
export { type AttemptOutcome, type SendSettings, sendWebhook, type WebhookMessage } from './sender.ts';
export { sendTestWebhook } from './test-events.ts';
export { isLocalWebhookUrl, webhookUrlProblem } from './url-rules.ts';
