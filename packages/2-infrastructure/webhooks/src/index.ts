export { type AddressKind, addressKind } from './addresses.ts';
export { signedHeaders, webhookBody } from './message.ts';
export { type AttemptOutcome, type SendSettings, sendWebhook, type WebhookMessage } from './sender.ts';
export { isLocalWebhookUrl, webhookUrlProblem } from './url-rules.ts';
