// Console sessions, on the shared session store: the token (`dps_` + 43 characters) is a bearer
// token for API clients and the cookie value for the web UI; the store keeps only its SHA-256.
import { type Session, type SessionStore, sessionStore } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';

export type ConsoleSession = Session<{ accountId: string }>;

export interface ConsoleSessions extends Omit<SessionStore<{ accountId: string }>, 'start'> {
  start(accountId: string): Promise<{ token: string; session: ConsoleSession }>;
}

export function consoleSessions(store: KeyValueStore): ConsoleSessions {
  const sessions = sessionStore<{ accountId: string }>(store, {
    keyPrefix: 'console-session',
    tokenPrefix: 'dps_',
    lifetimeSeconds: 12 * 60 * 60,
  });
  return { ...sessions, start: (accountId) => sessions.start({ accountId }) };
}
