// Player sessions and CSRF tokens. A session is a random id in an HttpOnly, SameSite=Lax cookie
// (Lax: the app's top-level redirect to the consent screen must carry it) pointing at a record in
// the store; each session has its own CSRF token, compared in constant time. A session may carry
// one notice ("Removed access for ..."), shown by the next page and then gone.
import { randomToken } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import type { Context } from 'koa';

export interface PlayerSession {
  playerId: string;
  csrf: string;
}

const sessionSeconds = 12 * 60 * 60;
const noticeSeconds = 60;

export function sessions(store: KeyValueStore, secure: boolean) {
  const cookieName = secure ? '__Host-player_session' : 'player_session';
  const cookieOptions = { httpOnly: true, sameSite: 'lax' as const, secure, path: '/', signed: false, overwrite: true };
  const key = (id: string) => `player-session:${id}`;
  const noticeKey = (id: string) => `player-session:${id}:notice`;
  const sessionId = (ctx: Context) => {
    const id = ctx.cookies.get(cookieName);
    return id && /^[\w-]{43}$/.test(id) ? id : null;
  };
  return {
    async current(ctx: Context): Promise<PlayerSession | null> {
      const id = sessionId(ctx);
      if (!id) return null;
      const [value] = await store.getMany([key(id)]);
      return value ? (JSON.parse(value) as PlayerSession) : null;
    },
    async start(ctx: Context, playerId: string): Promise<PlayerSession> {
      const previous = ctx.cookies.get(cookieName);
      if (previous) await store.delete([key(previous), noticeKey(previous)]);
      const id = randomToken();
      const session = { playerId, csrf: randomToken() };
      await store.put(key(id), JSON.stringify(session), sessionSeconds);
      ctx.cookies.set(cookieName, id, { ...cookieOptions, maxAge: sessionSeconds * 1000 });
      return session;
    },
    async end(ctx: Context): Promise<void> {
      const id = ctx.cookies.get(cookieName);
      if (id) await store.delete([key(id), noticeKey(id)]);
      ctx.cookies.set(cookieName, '', { ...cookieOptions, maxAge: 0 });
    },
    /** Leaves a notice for the next page of this session. */
    async notify(ctx: Context, notice: string): Promise<void> {
      const id = sessionId(ctx);
      if (id) await store.put(noticeKey(id), notice, noticeSeconds);
    },
    /** The session's notice, if any; it is shown once. */
    async takeNotice(ctx: Context): Promise<string | null> {
      const id = sessionId(ctx);
      if (!id) return null;
      const [notice] = await store.getMany([noticeKey(id)]);
      if (!notice) return null;
      await store.delete([noticeKey(id)]);
      return notice;
    },
  };
}
export type Sessions = ReturnType<typeof sessions>;
