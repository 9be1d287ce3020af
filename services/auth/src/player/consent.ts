// The consent screen at /oauth/authorize: shown to the signed-in player for a valid request, and
// answered by them with Allow (a code for the app) or Not now (access_denied).
import { cookieHosts } from '@devplat/config';
import { type Scope, scopeDescriptions } from '@devplat/contract';
import { pairwiseSubject } from '@devplat/domain/consents';
import { DependencyUnavailableError } from '@devplat/errors';
import { type CurrentSession, type PageApp, ProblemError, readForm, sendPage, sessionFormValid } from '@devplat/http';
import {
  type AuthorizationRequest,
  answerUrl,
  authorizationRequests,
  type Issuance,
  issueCode,
  type RequestRules,
  type Validation,
  validateRequest,
} from './authorize.ts';
import { type PlayerClient, type SignedInPlayer, signInFor } from './client.ts';
import { type ConsentView, consentPage, formRefusedPage, refusalPage } from './pages.ts';

export type ConsentScreen =
  | Exclude<Validation, { outcome: 'consent' }>
  | { outcome: 'signIn' }
  | { outcome: 'show'; view: ConsentView };

export interface ConsentAnswer {
  /** The session the answer came with, its CSRF token already checked. */
  current: CurrentSession<{ playerId: string }>;
  requestId: string;
  allow: boolean;
}

export type ConsentDecision =
  /** Another session's screen. */
  | { outcome: 'foreign' }
  /** Unknown, already answered or long expired. */
  | { outcome: 'expired' }
  /** The app is no longer valid. */
  | { outcome: 'appGone' }
  /** The answer, sent to the app's redirect URI: a code or an error. */
  | { outcome: 'redirect'; location: string };

/** What the consent screen's operations work with. */
export interface Consents {
  requests: ReturnType<typeof authorizationRequests>;
  rules: RequestRules;
  issuance: Issuance;
}

export function consentsFor({ config, prisma, store, provider, apps, pairwiseSecret }: PlayerClient): Consents {
  return {
    requests: authorizationRequests(store),
    rules: { apps, prisma, issuer: config.baseUrl.href, reservedHosts: cookieHosts(config) },
    issuance: { config, provider, prisma, pairwiseSecret },
  };
}

/** The answer for the app at its redirect URI, with the request's state. */
const answer = ({ rules }: Consents, request: AuthorizationRequest, params: Record<string, string | undefined>) =>
  answerUrl(request.redirectUri, rules.issuer, { ...params, state: request.state });

/**
 * The screen for a request: `signedIn` is asked only once the request is valid; `screenUrl` is
 * where "Not you?" comes back to.
 */
export async function showConsent(
  consents: Consents,
  query: Record<string, string | string[] | undefined>,
  screenUrl: string,
  signedIn: () => Promise<SignedInPlayer | null>,
): Promise<ConsentScreen> {
  const validation = await validateRequest(consents.rules, query);
  if (validation.outcome !== 'consent') return validation;
  const who = await signedIn();
  if (!who) return { outcome: 'signIn' };
  const { request, app } = validation;
  try {
    await consents.requests.save(request, who.token);
  } catch (error) {
    if (!(error instanceof DependencyUnavailableError)) throw error;
    return { outcome: 'redirect', location: answer(consents, request, { error: 'temporarily_unavailable' }) };
  }
  const view: ConsentView = {
    appName: app.name,
    scopes: request.scopes.map((scope) => ({ scope, description: scopeDescriptions[scope as Scope] })),
    pairwiseSubject: pairwiseSubject(consents.issuance.pairwiseSecret, app.clientId, who.player.id),
    returnHost: new URL(request.redirectUri).host,
    playerName: who.player.displayName ?? who.player.username,
    requestId: request.id,
    csrf: who.session.csrf,
    returnTo: screenUrl,
  };
  return { outcome: 'show', view };
}

/** The player's answer to a screen shown to their session. */
export async function decideConsent(
  consents: Consents,
  { current, requestId, allow }: ConsentAnswer,
): Promise<ConsentDecision> {
  const request = await consents.requests.take(requestId, current.token);
  // Another session's screen (its id sent with this session's CSRF token): left unanswered for
  // the player it was shown to.
  if (request === 'foreign') return { outcome: 'foreign' };
  if (!request) return { outcome: 'expired' };
  const deny = (error = 'access_denied'): ConsentDecision => ({
    outcome: 'redirect',
    location: answer(consents, request, { error }),
  });
  if (!allow || request.expiresAt < Date.now()) return deny();
  const revalidated = await validateRequest(consents.rules, {
    response_type: 'code',
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    scope: request.scopes.join(' '),
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
  });
  // The app, its account or its redirect URI may have changed while the screen was open: an
  // app that is no longer valid is never redirected to.
  if (revalidated.outcome !== 'consent') return { outcome: 'appGone' };
  let code: string;
  try {
    code = await issueCode(consents.issuance, request, revalidated.app, current.session.playerId);
  } catch (error) {
    if (!(error instanceof DependencyUnavailableError)) throw error;
    return deny('temporarily_unavailable');
  }
  return { outcome: 'redirect', location: answer(consents, request, { code }) };
}

export function consentRoutes(route: PageApp['route'], client: PlayerClient) {
  const { sessions, signedInPlayer } = client;
  const screens = consentsFor(client);

  route(
    '/oauth/authorize',
    {
      GET: async (ctx) => {
        const screen = await showConsent(screens, ctx.query, ctx.originalUrl, () => signedInPlayer(ctx));
        switch (screen.outcome) {
          case 'refuse':
            return sendPage(ctx, 400, refusalPage(screen.title, screen.message, screen.arrived));
          case 'redirect':
            return ctx.redirect(screen.location);
          case 'signIn':
            return ctx.redirect(signInFor(ctx.originalUrl));
          case 'show':
            return sendPage(ctx, 200, consentPage(screen.view));
        }
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
        const decision = await decideConsent(screens, {
          current,
          requestId: form.request ?? '',
          allow: form.decision === 'allow',
        });
        switch (decision.outcome) {
          case 'foreign':
            return sendPage(
              ctx,
              403,
              formRefusedPage('This consent screen was not shown to you. Start again from the app.'),
            );
          case 'expired':
            throw new ProblemError('MALFORMED_REQUEST', 'This consent screen has expired. Start again from the app.');
          case 'appGone':
            return sendPage(ctx, 400, refusalPage('This app cannot connect', 'The app is no longer available.'));
          case 'redirect':
            return ctx.redirect(decision.location);
        }
      },
    },
    // Allow answers with a redirect to the app, which form-action 'self' would block.
    { formAction: false },
  );
}
