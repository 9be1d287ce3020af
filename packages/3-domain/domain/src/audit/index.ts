// The audit room: the record of who did what, written by every room's operations in the
// transaction of the change, and read by the operator (a page newest first, or a range exported as
// JSON Lines) and by a developer (their app's history). Only store.ts touches the audit_records table.

export { type Page, pageLimits } from '../paging.ts';
export {
  type AuditActor,
  type AuditActorType,
  type AuditFilter,
  type AuditQuery,
  appHistory,
  auditJsonLine,
  auditTargetTypes,
  exportAudit,
  queryAudit,
} from './query.ts';
export { maxReasonLength, operatorReason, type ReasonFault } from './reason.ts';
export { type Actor, type AuditTarget, type Operator, recordAudit } from './store.ts';
