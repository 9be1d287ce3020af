export { type AddressKind, addressKind, addressProblem } from './addresses.ts';
export { deliveryView, listDeliveries } from './deliveries.ts';
export { type WebhookRule, WebhookRuleError } from './errors.ts';
export { signedHeaders, userAgent, webhookBody } from './message.ts';
export { replayDelivery } from './replay.ts';
export { type AttemptOutcome, type SendSettings, sendWebhook, type WebhookMessage } from './sender.ts';
export { sendTestWebhook } from './test-events.ts';
export { webhookUrlProblem } from './url-rules.ts';
