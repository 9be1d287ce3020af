// The consents room: what can be done with consent receipts (grant, end; an operator's ends) and
// what may be read of them. Only store.ts touches the consents table.
export { endConsentOfGrant, endConsents } from './end.ts';
export {
  type ConsentGrantedPayload,
  type ConsentRevokedPayload,
  consentGrantedPayload,
  consentRevokedPayload,
} from './events.ts';
export { type ConsentGrant, grantConsent } from './grant.ts';
export { type ConsentList, type ListedConsent, listConsents } from './listing.ts';
export {
  type BulkEnd,
  endAppConsents,
  endConsentByOperator,
  endPlayerConsents,
  type OperatorEnd,
  operatorEndBatchSize,
} from './operator.ts';
export { pairwiseSubject } from './pairwise.ts';
export {
  activeConsentCount,
  activeConsentIdsOfGrants,
  activeConsentsOfPlayer,
  activeConsentsWithApp,
  type ConsentActivityRow,
  type ConsentSelection,
  consentActivity,
} from './store.ts';
export {
  type Triggered,
  type TriggeredEvent,
  type TriggerSubject,
  triggerableScopes,
  triggerConsentGranted,
  triggerConsentRevoked,
} from './trigger.ts';
