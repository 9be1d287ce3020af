// The player client on PLAYER_CLIENT_URL: sandbox-player sign-in, the consent screen at
// /oauth/authorize and the player's connected apps at /account/connected-apps. Pages forbid
// framing, forms carry CSRF tokens, cookies are HttpOnly, SameSite and Secure when served over
// https.

import { type Config, cookieHosts } from '@devplat/config';
import { type Scope, scopeDescriptions } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { pairwiseSubject } from '@devplat/domain/consents';
import { findPlayer, findPlayerByUsername } from '@devplat/domain/players';
import { DependencyUnavailableError } from '@devplat/errors';
import {
  type Logger,
  ProblemError,
  pageApp,
  readForm,
  requestObserver,
  sendPage,
  sessionFormValid,
} from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';
import { decoyHash, verifyPassword } from '@devplat/passwords';
import { signInThrottle, waitInWords } from '@devplat/throttle';
import type Koa from 'koa';
import type { Context } from 'koa';
import type Provider from 'oidc-provider';
import { answerUrl, authorizationRequests, issueCode, validateRequest } from './authorize.ts';
import { connectedApps, removeAccess } from './connected-apps.ts';
import { connectedAppsPage, consentPage, formRefusedPage, refusalPage, signInPage } from './pages.ts';
import { playerSessions, signInCsrf } from './session.ts';

export interface PlayerClientDependencies {
  config: Config;
  pairwiseSecret: string;
  cookieKeys: string[];
  prisma: PrismaClient;
  store: KeyValueStore;
  provider: Provider;
  logger: Logger;
  metrics?: Metrics;
}

const connectedAppsPath = '/account/connected-apps';
const signInFor = (path: string) => `/signin?return_to=${encodeURIComponent(path)}`;

/** Only paths on this site: never an absolute URL or a scheme-relative one. */
function safeReturnTo(value: unknown): string {
  return typeof value === 'string' && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')
    ? value
    : connectedAppsPath;
}

export function buildPlayerClientApp(deps: PlayerClientDependencies): Koa {
  const { config, prisma, store, pairwiseSecret, logger } = deps;
  const secure = config.playerClientUrl.protocol === 'https:';
  const sessions = playerSessions(store, secure);
  const csrf = signInCsrf(secure);
  const requests = authorizationRequests(store);
  const throttle = signInThrottle(store, 'player-sign-in', config.signIn);
  const issuer = config.baseUrl.href;
  const rules = { prisma, issuer, reservedHosts: cookieHosts(config) };
  const { app, route } = pageApp({
    logger,
    errorPage: ({ title, message }) => refusalPage(title, message),
    keys: deps.cookieKeys,
    forwarded: { secure, trustedProxies: config.trustedProxies },
    observe: deps.metrics && requestObserver(deps.metrics, 'player-client'),
  });

  /** The signed-in player, if their session is current and they are still active. */
  async function signedInPlayer(ctx: Context) {
    const current = await sessions.current(ctx);
    if (!current) return null;
    const player = await findPlayer(prisma, current.session.playerId);
    if (player?.status !== 'active') {
      await sessions.end(ctx);
      return null;
    }
    return { ...current, player };
  }

  route('/', { GET: async (ctx) => ctx.redirect((await sessions.current(ctx)) ? connectedAppsPath : '/signin') });

  route('/signin', {
    GET: (ctx) =>
      sendPage(ctx, 200, signInPage({ csrf: csrf.issue(ctx), returnTo: safeReturnTo(ctx.query.return_to) })),
    POST: async (ctx) => {
      const form = await readForm(ctx);
      const returnTo = safeReturnTo(form.return_to);
      if (!csrf.valid(ctx, form.csrf)) {
        throw new ProblemError('MALFORMED_REQUEST', 'The form expired. Go back and sign in again.');
      }
      const refuse = (status: number, error: string) =>
        sendPage(ctx, status, signInPage({ csrf: csrf.issue(ctx), returnTo, error, username: form.username }));
      // Counted before any lookup: a locked attempt checks no password, known or unknown username.
      const attempt = { account: form.username ?? '', address: ctx.ip };
      const locked = await throttle.begin(attempt);
      if (locked) {
        ctx.set('Retry-After', String(locked.retryAfterSeconds));
        return refuse(429, `Too many sign-in attempts. Try again in ${waitInWords(locked.retryAfterSeconds)}.`);
      }
      const player = await findPlayerByUsername(prisma, form.username ?? '');
      const valid = await verifyPassword(form.password ?? '', player?.passwordHash ?? (await decoyHash()));
      if (!player || !valid || player.status !== 'active') return refuse(401, 'Wrong username or password.');
      await throttle.succeeded(attempt);
      await sessions.start(ctx, { playerId: player.id });
      csrf.clear(ctx);
      ctx.redirect(returnTo);
    },
  });

  route(
    '/oauth/authorize',
    {
      GET: async (ctx) => {
        const validation = await validateRequest(rules, ctx.query);
        if (validation.outcome === 'refuse') {
          return sendPage(ctx, 400, refusalPage(validation.title, validation.message, validation.arrived));
        }
        if (validation.outcome === 'redirect') return ctx.redirect(validation.location);
        const signedIn = await signedInPlayer(ctx);
        if (!signedIn) return ctx.redirect(signInFor(ctx.originalUrl));
        const { token, session, player } = signedIn;
        const { request, app } = validation;
        try {
          await requests.save(request, token);
        } catch (error) {
          if (!(error instanceof DependencyUnavailableError)) throw error;
          return ctx.redirect(
            answerUrl(request.redirectUri, issuer, { error: 'temporarily_unavailable', state: request.state }),
          );
        }
        const view = {
          appName: app.name,
          scopes: request.scopes.map((scope) => ({ scope, description: scopeDescriptions[scope as Scope] })),
          pairwiseSubject: pairwiseSubject(pairwiseSecret, app.clientId, player.id),
          returnHost: new URL(request.redirectUri).host,
          playerName: player.displayName ?? player.username,
          requestId: request.id,
          csrf: session.csrf,
          returnTo: ctx.originalUrl,
        };
        sendPage(ctx, 200, consentPage(view));
      },
      POST: async (ctx) => {
        const form = await readForm(ctx);
        const current = await sessions.current(ctx);
        if (!current || !sessionFormValid(current.session, form.csrf)) {
          throw new ProblemError(
            'MALFORMED_REQUEST',
            'This consent screen is not valid any more. Start again from the app.',
          );
        }
        const request = await requests.take(form.request ?? '', current.token);
        if (request === 'foreign') {
          // Another session's screen (its id sent with this session's CSRF token): left unanswered
          // for the player it was shown to.
          return sendPage(
            ctx,
            403,
            formRefusedPage('This consent screen was not shown to you. Start again from the app.'),
          );
        }
        if (!request) {
          throw new ProblemError('MALFORMED_REQUEST', 'This consent screen has expired. Start again from the app.');
        }
        const deny = (error = 'access_denied') =>
          ctx.redirect(answerUrl(request.redirectUri, issuer, { error, state: request.state }));
        if (form.decision !== 'allow' || request.expiresAt < Date.now()) return deny();
        const revalidated = await validateRequest(rules, {
          response_type: 'code',
          client_id: request.clientId,
          redirect_uri: request.redirectUri,
          scope: request.scopes.join(' '),
          code_challenge: request.codeChallenge,
          code_challenge_method: 'S256',
        });
        // The app, its account or its redirect URI may have changed while the screen was open: an
        // app that is no longer valid is never redirected to.
        if (revalidated.outcome !== 'consent') {
          return sendPage(ctx, 400, refusalPage('This app cannot connect', 'The app is no longer available.'));
        }
        let code: string;
        try {
          code = await issueCode(
            { config, provider: deps.provider, prisma, pairwiseSecret },
            request,
            revalidated.app,
            current.session.playerId,
          );
        } catch (error) {
          if (!(error instanceof DependencyUnavailableError)) throw error;
          return deny('temporarily_unavailable');
        }
        ctx.redirect(answerUrl(request.redirectUri, issuer, { code, state: request.state }));
      },
    },
    // Allow answers with a redirect to the app, which form-action 'self' would block.
    { formAction: false },
  );

  route(connectedAppsPath, {
    GET: async (ctx) => {
      const signedIn = await signedInPlayer(ctx);
      if (!signedIn) return ctx.redirect(signInFor(connectedAppsPath));
      const { token, session, player } = signedIn;
      const [apps, notice] = await Promise.all([connectedApps(prisma, player.id), sessions.store.takeNotice(token)]);
      const view = { playerName: player.displayName ?? player.username, apps, notice, csrf: session.csrf };
      sendPage(ctx, 200, connectedAppsPage(view));
    },
  });

  route(`${connectedAppsPath}/remove`, {
    POST: async (ctx) => {
      const form = await readForm(ctx);
      const signedIn = await signedInPlayer(ctx);
      if (!signedIn) {
        ctx.status = 303;
        return ctx.redirect(signInFor(connectedAppsPath));
      }
      if (!sessionFormValid(signedIn.session, form.csrf)) {
        return sendPage(ctx, 403, formRefusedPage('This page has expired and nothing was removed. Open it again.'));
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
        await sessions.store.notify(signedIn.token, notice);
      } catch (error) {
        // The withdrawal stands whatever happens to the store now; only its confirmation is lost.
        if (!(error instanceof DependencyUnavailableError)) throw error;
        logger.error({ err: { name: (error as Error).name, message: (error as Error).message } }, 'notice not saved');
      }
      ctx.status = 303;
      ctx.redirect(connectedAppsPath);
    },
  });

  route('/signout', {
    POST: async (ctx) => {
      const form = await readForm(ctx);
      const current = await sessions.current(ctx);
      if (current && !sessionFormValid(current.session, form.csrf)) {
        const message = 'This page has expired and you are still signed in. Open it again.';
        return sendPage(ctx, 403, formRefusedPage(message));
      }
      await sessions.end(ctx);
      ctx.status = 303;
      // "Not you?" on the consent screen comes back to the same request after the next sign-in.
      ctx.redirect(form.return_to === undefined ? '/signin' : signInFor(safeReturnTo(form.return_to)));
    },
  });

  return app;
}
