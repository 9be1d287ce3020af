// The player client on PLAYER_CLIENT_URL: sandbox-player sign-in, the consent screen at
// /oauth/authorize and the player's connected apps at /account/connected-apps. Pages forbid
// framing, forms carry CSRF tokens, cookies are HttpOnly, SameSite and Secure when served over
// https.
import { pageApp, requestObserver } from '@devplat/http';
import type Koa from 'koa';
import { connectedAppsPath, type PlayerClientDependencies, playerClient } from './client.ts';
import { connectedAppsRoutes } from './connected-apps-routes.ts';
import { consentRoutes } from './consent.ts';
import { refusalPage } from './pages.ts';
import { signInRoutes } from './sign-in.ts';
import { signOutRoutes } from './sign-out.ts';

export type { PlayerClientDependencies } from './client.ts';

export function buildPlayerClientApp(deps: PlayerClientDependencies): Koa {
  const client = playerClient(deps);
  const { config, sessions } = client;
  const { app, route } = pageApp({
    logger: deps.logger,
    errorPage: ({ title, message }) => refusalPage(title, message),
    keys: deps.cookieKeys,
    forwarded: { secure: client.secure, trustedProxies: config.trustedProxies },
    observe: deps.metrics && requestObserver(deps.metrics, 'player-client'),
  });

  route('/', { GET: async (ctx) => ctx.redirect((await sessions.current(ctx)) ? connectedAppsPath : '/signin') });
  signInRoutes(route, client);
  consentRoutes(route, client);
  connectedAppsRoutes(route, client);
  signOutRoutes(route, client);
  return app;
}
