// Console sessions, two kinds that never stand in for each other: the web UI's cookie sessions
// (`dcw_` tokens) and the API's bearer tokens (`dps_`, from POST /api/sessions). Each lives under
// its own keys, so a cookie value presented as a bearer token (or the reverse) opens nothing. The
// store keeps only SHA-256 hashes of the tokens.
import { type Session, type SessionStore, sessionStore } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';

export type ConsoleSession = Session<{ accountId: string }>;
export type ConsoleSessions = SessionStore<{ accountId: string }>;

const lifetimeSeconds = 12 * 60 * 60;

export function consoleSessions(store: KeyValueStore): { web: ConsoleSessions; api: ConsoleSessions } {
  return {
    web: sessionStore(store, { keyPrefix: 'console-web-session', tokenPrefix: 'dcw_', lifetimeSeconds }),
    api: sessionStore(store, { keyPrefix: 'console-session', tokenPrefix: 'dps_', lifetimeSeconds }),
  };
}
