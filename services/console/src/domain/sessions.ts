// Console sessions in the key-value store. The token (a bearer token for API clients, the cookie
// value for the web UI) is random; the store keeps only its SHA-256, so a store dump opens nothing.
// Each session carries its own CSRF token for the web forms, and one pending notice ("flash").
import { createHash } from 'node:crypto';
import { randomToken } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';

export const sessionSeconds = 12 * 60 * 60;

export interface ConsoleSession {
  accountId: string;
  csrf: string;
  expiresAt: number;
  notice?: string;
}

const key = (token: string) => `console-session:${createHash('sha256').update(token).digest('hex')}`;
const tokenPattern = /^dps_[A-Za-z0-9_-]{43}$/;
export function consoleSessions(store: KeyValueStore) {
  return {
    async start(accountId: string): Promise<{ token: string; session: ConsoleSession }> {
      const token = `dps_${randomToken()}`;
      const session = { accountId, csrf: randomToken(), expiresAt: Date.now() + sessionSeconds * 1000 };
      await store.put(key(token), JSON.stringify(session), sessionSeconds);
      return { token, session };
    },
    async find(token: string | undefined): Promise<ConsoleSession | null> {
      if (!token || !tokenPattern.test(token)) return null;
      const [value] = await store.getMany([key(token)]);
      if (!value) return null;
      const session = JSON.parse(value) as ConsoleSession;
      return session.expiresAt > Date.now() ? session : null;
    },
    async save(token: string, session: ConsoleSession): Promise<void> {
      const seconds = Math.ceil((session.expiresAt - Date.now()) / 1000);
      if (seconds > 0) await store.put(key(token), JSON.stringify(session), seconds);
    },
    end: (token: string) => store.delete([key(token)]),
  };
}
export type ConsoleSessions = ReturnType<typeof consoleSessions>;
