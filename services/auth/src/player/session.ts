// Player sessions and the sign-in form's CSRF token, on the shared session store. The session
// cookie is SameSite=Lax: the app's top-level redirect to the consent screen must carry it. The
// sign-in form's double-submit cookie is SameSite=Strict, on path / so that over https it too gets
// the __Host- prefix (a cookie no sibling or plain-http origin can plant).
import { type CookieSessions, cookie, cookieSessions, doubleSubmitCsrf, sessionStore } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';

export type PlayerSessions = CookieSessions<{ playerId: string }>;

export function playerSessions(store: KeyValueStore, secure: boolean): PlayerSessions {
  return cookieSessions(
    sessionStore<{ playerId: string }>(store, { keyPrefix: 'player-session', lifetimeSeconds: 12 * 60 * 60 }),
    cookie({ name: 'player_session', sameSite: 'lax', secure }),
  );
}

export const signInCsrf = (secure: boolean) =>
  doubleSubmitCsrf(cookie({ name: 'player_csrf', sameSite: 'strict', secure }));
