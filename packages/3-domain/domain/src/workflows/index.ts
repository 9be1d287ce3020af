// Workflows: what spans rooms, above all of them. Each room imports only rooms below it (audit and
// events at the bottom, then registry and revocations, accounts, players, consents, apps, api-keys;
// packages/3-domain/domain/test/layers.test.ts keeps the order); what needs rooms side by side lives here:
// an account's suspension reaching its apps, a developer's history of apps and accounts, the audit
// filter's names resolved in every room, consent triggers on a developer's app and player, the
// console's webhooks of an app, and its test event.
export { reactivateAccount, suspendAccount } from './account-suspension.ts';
export { auditFilterOf } from './audit-filter.ts';
export { consentTriggers, triggerRate } from './consent-triggers.ts';
export {
  type AccountHistoryPage,
  type AppHistoryPage,
  type DeveloperHistoryPage,
  developerHistories,
  type HistoryPageAsked,
  historyOfAccount,
  historyOfApp,
} from './developer-history.ts';
export { developerWebhooks } from './developer-webhooks.ts';
export { sendTestWebhook, type TestEventSent } from './test-webhook.ts';
