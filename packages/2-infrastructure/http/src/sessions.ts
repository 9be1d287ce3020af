// Sessions in the key-value store. A session's token is random; the store keeps only its SHA-256,
// so a store dump opens nothing. Each session carries its own CSRF token for the signed-in forms
// and an expiry. A one-time notice for the next page ("flash") is kept beside the session, never
// written into it: a slow request must not revive a session that was ended meanwhile.
import { randomToken, secretHash } from '@devplat/keys';
import { hashTag, type KeyValueStore } from '@devplat/kv';
import type { Context } from 'koa';
import type { Cookie } from './cookies.ts';

/** What the site keeps in a session (who is signed in), with the session's CSRF token and expiry. */
export type Session<Data extends object> = Data & {
  csrf: string;
  /** Milliseconds since the epoch. */
  expiresAt: number;
};

export interface SessionStoreOptions {
  /** Starts every key: "console-session" keeps console-session:<SHA-256 of the token>. */
  keyPrefix: string;
  /** Starts every token, before its 43 random characters ("dps_"); default none. */
  tokenPrefix?: string;
  lifetimeSeconds: number;
}

export interface SessionStore<Data extends object> {
  readonly lifetimeSeconds: number;
  start(data: Data): Promise<{ token: string; session: Session<Data> }>;
  /** The current session of a token; null for a malformed, unknown, ended or expired one. */
  find(token: string | undefined): Promise<Session<Data> | null>;
  end(token: string): Promise<void>;
  /** Leaves a notice for the session's next page. */
  notify(token: string, notice: string): Promise<void>;
  /** The session's notice, if any: it is shown once. */
  takeNotice(token: string): Promise<string | undefined>;
}

const noticeSeconds = 60;

export function sessionStore<Data extends object>(
  store: KeyValueStore,
  { keyPrefix, tokenPrefix = '', lifetimeSeconds }: SessionStoreOptions,
): SessionStore<Data> {
  const tokenPattern = new RegExp(`^${tokenPrefix}[A-Za-z0-9_-]{43}$`);
  // The token's hash is the hash tag: a session and its notice share a Cluster slot.
  const key = (token: string) => `${keyPrefix}:${hashTag(secretHash(token))}`;
  const noticeKey = (token: string) => `${key(token)}:notice`;
  return {
    lifetimeSeconds,
    async start(data) {
      const token = `${tokenPrefix}${randomToken()}`;
      const session = { ...data, csrf: randomToken(), expiresAt: Date.now() + lifetimeSeconds * 1000 };
      await store.put(key(token), JSON.stringify(session), lifetimeSeconds);
      return { token, session };
    },
    async find(token) {
      // A malformed token never reaches the store.
      if (!token || !tokenPattern.test(token)) return null;
      const [value] = await store.getMany([key(token)]);
      if (!value) return null;
      const session = JSON.parse(value) as Session<Data>;
      return session.expiresAt > Date.now() ? session : null;
    },
    end: (token) => store.delete([key(token), noticeKey(token)]),
    notify: (token, notice) => store.put(noticeKey(token), notice, noticeSeconds),
    async takeNotice(token) {
      const [notice] = await store.getMany([noticeKey(token)]);
      if (notice === null || notice === undefined) return undefined;
      await store.delete([noticeKey(token)]);
      return notice;
    },
  };
}

/** The browser's current session, read from its cookie. */
export interface CurrentSession<Data extends object> {
  token: string;
  session: Session<Data>;
}

export interface CookieSessions<Data extends object> {
  readonly store: SessionStore<Data>;
  current(ctx: Context): Promise<CurrentSession<Data> | null>;
  /** Ends the browser's previous session, if any, and starts a new one in its cookie. */
  start(ctx: Context, data: Data): Promise<CurrentSession<Data>>;
  /** Ends the browser's session and clears its cookie. */
  end(ctx: Context): Promise<void>;
}

/** Sessions carried by a cookie whose value is the session's token. */
export function cookieSessions<Data extends object>(
  store: SessionStore<Data>,
  sessionCookie: Cookie,
): CookieSessions<Data> {
  return {
    store,
    async current(ctx) {
      const token = sessionCookie.get(ctx);
      const session = await store.find(token);
      return token && session ? { token, session } : null;
    },
    async start(ctx, data) {
      const previous = sessionCookie.get(ctx);
      if (previous) await store.end(previous);
      const started = await store.start(data);
      sessionCookie.set(ctx, started.token, store.lifetimeSeconds);
      return started;
    },
    async end(ctx) {
      const token = sessionCookie.get(ctx);
      if (token) await store.end(token);
      sessionCookie.clear(ctx);
    },
  };
}
