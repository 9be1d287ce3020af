// The audit room: the record of who did what, written by every room's operations in the
// transaction of the change. Only store.ts touches the audit_records table.
export { type Actor, type Operator, recordAudit } from './store.ts';
