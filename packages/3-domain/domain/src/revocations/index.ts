// The revocations room: app access tokens revoked before they expire (RFC 7009 at auth's
// /oauth/revoke). Only store.ts touches the revoked_tokens table; the api's liveness statement
// reads it on every call.
export { countExpiredRevocations, deleteExpiredRevocations, recordRevokedToken } from './store.ts';
