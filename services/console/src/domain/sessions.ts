// Console sessions, on the shared session store: the token (`dps_` + 43 characters) is a bearer
// token for API clients and the cookie value for the web UI; the store keeps only its SHA-256.
import { type Session, type SessionStore, sessionStore } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';

export type ConsoleSession = Session<{ accountId: string }>;
export type ConsoleSessions = SessionStore<{ accountId: string }>;

export function consoleSessions(store: KeyValueStore): ConsoleSessions {
  return sessionStore(store, { keyPrefix: 'console-session', tokenPrefix: 'dps_', lifetimeSeconds: 12 * 60 * 60 });
}
