// The player client on PLAYER_CLIENT_URL: sandbox-player sign-in, the consent screen at
// /oauth/authorize and the player's connected apps at /account/connected-apps. Pages forbid
// framing, forms carry CSRF tokens, cookies are HttpOnly, SameSite and Secure when served over
// https.

import type { Config } from '@devplat/config';
import { type Scope, scopeDescriptions } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import {
  isDependencyFailure,
  type Logger,
  ProblemError,
  pageErrors,
  randomToken,
  readForm,
  requestLog,
  sameToken,
} from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import { decoyHash, verifyPassword } from '@devplat/passwords';
import Router from '@koa/router';
import Koa, { type Context, type Middleware } from 'koa';
import type Provider from 'oidc-provider';
import { pairwiseSubject } from '../pairwise.ts';
import { answerUrl, authorizationRequests, issueCode, validateRequest } from './authorize.ts';
import { connectedApps, removeAccess } from './connected-apps.ts';
import { connectedAppsPage, consentPage, formRefusedPage, refusalPage, signInPage } from './pages.ts';
import { sessions } from './session.ts';

export interface PlayerClientDependencies {
  config: Config;
  pairwiseSecret: string;
  cookieKeys: string[];
  prisma: PrismaClient;
  store: KeyValueStore;
  provider: Provider;
  logger: Logger;
}

const csrfCookie = 'player_csrf';
const connectedAppsPath = '/account/connected-apps';
const signInFor = (path: string) => `/signin?return_to=${encodeURIComponent(path)}`;

function pageHeaders(formAction: boolean): Middleware {
  return async (ctx, next) => {
    ctx.set({
      'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; frame-ancestors 'none'${formAction ? "; form-action 'self'" : ''}`,
      'X-Frame-Options': 'DENY',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
      'Cache-Control': 'no-store',
    });
    await next();
  };
}

function page(ctx: Context, status: number, html: string) {
  ctx.status = status;
  ctx.type = 'html';
  ctx.body = html;
}

/** Only paths on this site: never an absolute URL or a scheme-relative one. */
function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')
    ? value
    : connectedAppsPath;
}

export function buildPlayerClientApp(deps: PlayerClientDependencies): Koa {
  const { config, prisma, store, pairwiseSecret, logger } = deps;
  const secure = config.playerClientUrl.protocol === 'https:';
  const session = sessions(store, secure);
  const requests = authorizationRequests(store);
  const issuer = config.baseUrl.href;
  const router = new Router({ strict: true });

  /** The signed-in player, if their session is current and they are still active. */
  async function signedInPlayer(ctx: Context) {
    const current = await session.current(ctx);
    if (!current) return null;
    const player = await prisma.sandboxPlayer.findUnique({ where: { id: current.playerId } });
    if (player?.status !== 'active') {
      await session.end(ctx);
      return null;
    }
    return { session: current, player };
  }

  router.get('/', async (ctx) => ctx.redirect((await session.current(ctx)) ? connectedAppsPath : '/signin'));

  router.get('/signin', pageHeaders(true), (ctx) => {
    const csrf = randomToken();
    ctx.cookies.set(csrfCookie, csrf, { httpOnly: true, sameSite: 'strict', secure, path: '/signin', signed: false });
    page(ctx, 200, signInPage({ csrf, returnTo: safeReturnTo(ctx.query.return_to) }));
  });

  router.post('/signin', pageHeaders(true), async (ctx) => {
    const form = await readForm(ctx);
    const returnTo = safeReturnTo(form.return_to);
    if (!sameToken(form.csrf, ctx.cookies.get(csrfCookie))) {
      throw new ProblemError('MALFORMED_REQUEST', 'The form expired. Go back and sign in again.');
    }
    const player = await prisma.sandboxPlayer.findUnique({ where: { username: form.username ?? '' } });
    const valid = await verifyPassword(form.password ?? '', player?.passwordHash ?? (await decoyHash()));
    if (!player || !valid || player.status !== 'active') {
      const csrf = randomToken();
      ctx.cookies.set(csrfCookie, csrf, { httpOnly: true, sameSite: 'strict', secure, path: '/signin', signed: false });
      page(ctx, 401, signInPage({ csrf, returnTo, error: 'Wrong username or password.', username: form.username }));
      return;
    }
    await session.start(ctx, player.id);
    ctx.redirect(returnTo);
  });

  router.get('/oauth/authorize', pageHeaders(false), async (ctx) => {
    const validation = await validateRequest(prisma, issuer, ctx.query);
    if (validation.outcome === 'refuse') return page(ctx, 400, refusalPage(validation.title, validation.message));
    if (validation.outcome === 'redirect') return ctx.redirect(validation.location);
    const signedIn = await signedInPlayer(ctx);
    if (!signedIn) return ctx.redirect(signInFor(ctx.originalUrl));
    const { session: current, player } = signedIn;
    const { request, app } = validation;
    try {
      await requests.save(request);
    } catch (error) {
      if (!isDependencyFailure(error)) throw error;
      return ctx.redirect(
        answerUrl(request.redirectUri, issuer, { error: 'temporarily_unavailable', state: request.state }),
      );
    }
    page(
      ctx,
      200,
      consentPage({
        appName: app.name,
        scopes: request.scopes.map((scope) => ({ scope, description: scopeDescriptions[scope as Scope] })),
        pairwiseSubject: pairwiseSubject(pairwiseSecret, app.clientId, player.id),
        returnHost: new URL(request.redirectUri).host,
        playerName: player.displayName ?? player.username,
        requestId: request.id,
        csrf: current.csrf,
      }),
    );
  });

  router.post('/oauth/authorize', pageHeaders(false), async (ctx) => {
    const form = await readForm(ctx);
    const current = await session.current(ctx);
    if (!current || !sameToken(form.csrf, current.csrf)) {
      throw new ProblemError(
        'MALFORMED_REQUEST',
        'This consent screen is not valid any more. Start again from the app.',
      );
    }
    const request = await requests.take(form.request ?? '');
    if (!request)
      throw new ProblemError('MALFORMED_REQUEST', 'This consent screen has expired. Start again from the app.');
    const deny = (error = 'access_denied') =>
      ctx.redirect(answerUrl(request.redirectUri, issuer, { error, state: request.state }));
    if (form.decision !== 'allow' || request.expiresAt < Date.now()) return deny();
    const revalidated = await validateRequest(prisma, issuer, {
      response_type: 'code',
      client_id: request.clientId,
      redirect_uri: request.redirectUri,
      scope: request.scopes.join(' '),
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
    });
    // The app, its account or its redirect URI may have changed while the screen was open: an app
    // that is no longer valid is never redirected to.
    if (revalidated.outcome !== 'consent') {
      return page(ctx, 400, refusalPage('This app cannot connect', 'The app is no longer available.'));
    }
    let code: string;
    try {
      code = await issueCode(
        { config, provider: deps.provider, prisma, pairwiseSecret },
        request,
        revalidated.app,
        current.playerId,
      );
    } catch (error) {
      if (!isDependencyFailure(error)) throw error;
      return deny('temporarily_unavailable');
    }
    ctx.redirect(answerUrl(request.redirectUri, issuer, { code, state: request.state }));
  });

  router.get(connectedAppsPath, pageHeaders(true), async (ctx) => {
    const signedIn = await signedInPlayer(ctx);
    if (!signedIn) return ctx.redirect(signInFor(connectedAppsPath));
    const { session: current, player } = signedIn;
    const [apps, notice] = await Promise.all([connectedApps(prisma, player.id), session.takeNotice(ctx)]);
    page(
      ctx,
      200,
      connectedAppsPage({ playerName: player.displayName ?? player.username, apps, notice, csrf: current.csrf }),
    );
  });

  router.post(`${connectedAppsPath}/remove`, pageHeaders(true), async (ctx) => {
    const form = await readForm(ctx);
    const signedIn = await signedInPlayer(ctx);
    if (!signedIn) {
      ctx.status = 303;
      return ctx.redirect(signInFor(connectedAppsPath));
    }
    if (!sameToken(form.csrf, signedIn.session.csrf)) {
      return page(ctx, 403, formRefusedPage('This page has expired and nothing was removed. Open it again.'));
    }
    const appName = await removeAccess(
      { prisma, pairwiseSecret, provider: deps.provider, logger },
      signedIn.player.id,
      form.client_id ?? '',
    );
    const notice =
      appName === null
        ? 'There was nothing to remove: that app has no access to your account.'
        : `Removed access for ${appName}.`;
    try {
      await session.notify(ctx, notice);
    } catch (error) {
      // The withdrawal stands whatever happens to the store now; only its confirmation is lost.
      if (!isDependencyFailure(error)) throw error;
      logger.error({ err: { name: (error as Error).name, message: (error as Error).message } }, 'notice not saved');
    }
    ctx.status = 303;
    ctx.redirect(connectedAppsPath);
  });

  router.post('/signout', pageHeaders(true), async (ctx) => {
    const form = await readForm(ctx);
    const current = await session.current(ctx);
    if (current && !sameToken(form.csrf, current.csrf)) {
      return page(ctx, 403, formRefusedPage('This page has expired and you are still signed in. Open it again.'));
    }
    await session.end(ctx);
    ctx.status = 303;
    ctx.redirect('/signin');
  });

  const app = new Koa();
  app.silent = true;
  app.keys = deps.cookieKeys;
  app.proxy = secure;
  app.use(requestLog(logger));
  app.use(pageErrors(logger, (ctx, status, title, message) => page(ctx, status, refusalPage(title, message))));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
