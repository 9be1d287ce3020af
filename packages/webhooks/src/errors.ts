/** Which rule refused; the names match the console's problem codes. */
export type WebhookRule = 'NO_WEBHOOK_URL' | 'DELIVERY_NOT_FAILED' | 'APP_DISABLED' | 'NOT_FOUND';

/** A refusal whose message is fit to show the developer as it is (the console answers it). */
export class WebhookRuleError extends Error {
  readonly rule: WebhookRule;
  constructor(rule: WebhookRule, message: string) {
    super(message);
    this.name = 'WebhookRuleError';
    this.rule = rule;
  }
}
