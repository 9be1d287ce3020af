// Console sessions in the key-value store. The token (a bearer token for API clients, the cookie
// value for the web UI) is random; the store keeps only its SHA-256, so a store dump opens nothing.
// Each session carries its own CSRF token for the web forms. A notice for the next page ("flash")
// is kept beside the session, never written into it: a slow request must not revive a session
// that was signed out meanwhile.
import { createHash } from 'node:crypto';
import { randomToken } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';

export const sessionSeconds = 12 * 60 * 60;

export interface ConsoleSession {
  accountId: string;
  csrf: string;
  expiresAt: number;
}

const key = (token: string) => `console-session:${createHash('sha256').update(token).digest('hex')}`;
const noticeSeconds = 60;
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
    notify: (token: string, notice: string) => store.put(`${key(token)}:notice`, notice, noticeSeconds),
    async takeNotice(token: string): Promise<string | undefined> {
      const [notice] = await store.getMany([`${key(token)}:notice`]);
      if (notice === null || notice === undefined) return undefined;
      await store.delete([`${key(token)}:notice`]);
      return notice;
    },
    end: (token: string) => store.delete([key(token), `${key(token)}:notice`]),
  };
}
export type ConsoleSessions = ReturnType<typeof consoleSessions>;
