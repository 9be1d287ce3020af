// The consent screen's authorization requests: validated exactly per the contract's consent
// table, kept in the store while the screen is shown, and decided by the player. On Allow the
// grant and the single-use sva_ code are made with the provider's own models, so the token
// endpoint redeems them with its PKCE, redirect_uri, expiry and replay checks.
import { createHash } from 'node:crypto';
import { findUsableApp, type UsableApp } from '@devplat/app-directory';
import type { Config } from '@devplat/config';
import { idFormats, scopes as scopeCatalogue, userScopes } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { onReservedHost } from '@devplat/domain/apps';
import { grantConsent, pairwiseSubject } from '@devplat/domain/consents';
import { randomBase64url } from '@devplat/keys';
import { hashTag, type KeyValueStore } from '@devplat/kv';
import type Provider from 'oidc-provider';

export interface AuthorizationRequest {
  id: string;
  clientId: string;
  redirectUri: string;
  state?: string;
  scopes: string[];
  codeChallenge: string;
  /** Until when the screen may be answered (ms since epoch). */
  expiresAt: number;
}

/** What arrived, shown on a refusal so the app's developer can compare it with what they registered. */
export interface Arrived {
  clientId?: string;
  redirectUri?: string;
  /** The app's registered redirect URIs, beside the one that arrived. */
  registered?: string[];
}

export type Validation =
  | { outcome: 'refuse'; title: string; message: string; arrived?: Arrived }
  | { outcome: 'redirect'; location: string }
  | { outcome: 'consent'; request: AuthorizationRequest; app: UsableApp };

const screenSeconds = 10 * 60;
// The request's id is the hash tag: the request and its answered mark share a Cluster slot.
const requestKey = (id: string) => `authz-request:${hashTag(id)}`;

/** The registered redirect URI with the answer's parameters and the issuer (RFC 9207). */
export function answerUrl(redirectUri: string, issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  url.searchParams.append('iss', issuer);
  return url.href;
}

export interface RequestRules {
  prisma: PrismaClient;
  issuer: string;
  /** The platform's cookie hosts: a redirect URI there is refused even if registered. */
  reservedHosts: readonly string[];
}

export async function validateRequest(
  { prisma, issuer, reservedHosts }: RequestRules,
  query: Record<string, string | string[] | undefined>,
): Promise<Validation> {
  const single = (name: string) => (Array.isArray(query[name]) ? null : query[name]);
  const clientId = single('client_id');
  const redirectUri = single('redirect_uri');
  if (!clientId)
    return {
      outcome: 'refuse',
      title: 'This app cannot connect',
      message: 'The request does not say which app it is from.',
    };
  const app = await findUsableApp(prisma, clientId);
  if (!app)
    return {
      outcome: 'refuse',
      title: 'This app cannot connect',
      message: 'The app is unknown or not available.',
      arrived: { clientId },
    };
  const arrived = { clientId, redirectUri: redirectUri ?? undefined, registered: app.redirectUris };
  if (!redirectUri || !app.redirectUris.includes(redirectUri)) {
    const message = redirectUri
      ? 'The app asked to return you to an address it has not registered. Redirect URIs must match one registered for the app exactly, character for character.'
      : 'The request does not say where to return you (redirect_uri is missing).';
    return { outcome: 'refuse', title: 'This app cannot connect', message, arrived };
  }
  // A URI registered before the platform's hosts changed may point at one of them now.
  if (onReservedHost(redirectUri, reservedHosts)) {
    return {
      outcome: 'refuse',
      title: 'This app cannot connect',
      message: "The app asked to return you to an address on the platform's own sites, which no app may use.",
      arrived,
    };
  }
  const state = single('state') ?? undefined;
  const fail = (error: string, description: string): Validation => ({
    outcome: 'redirect',
    location: answerUrl(redirectUri, issuer, { error, error_description: description, state }),
  });
  const repeated = Object.entries(query).find(([, value]) => Array.isArray(value));
  if (repeated) return fail('invalid_request', `${repeated[0]} appears more than once`);
  if (single('response_type') !== 'code')
    return fail('unsupported_response_type', 'only response_type=code is supported');
  const challenge = single('code_challenge');
  if (!challenge)
    return fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256');
  if (single('code_challenge_method') !== 'S256')
    return fail('invalid_request', 'only code_challenge_method=S256 is supported');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return fail('invalid_request', 'code_challenge must be a base64url SHA-256 digest');
  const scopes = [...new Set((single('scope') ?? '').split(' ').filter(Boolean))];
  if (scopes.length === 0) return fail('invalid_scope', 'scope is required');
  for (const scope of scopes) {
    if (
      !(scope in scopeCatalogue) ||
      !(userScopes as readonly string[]).includes(scope) ||
      !app.scopes.includes(scope)
    ) {
      return fail('invalid_scope', `${scope} is not granted to this app`);
    }
  }
  const request: AuthorizationRequest = {
    id: randomBase64url(24),
    clientId,
    redirectUri,
    ...(state !== undefined ? { state } : {}),
    scopes,
    codeChallenge: challenge,
    expiresAt: Date.now() + screenSeconds * 1000,
  };
  return { outcome: 'consent', request, app };
}

/** What a saved request keeps of the session it was shown to: a digest, never the token. */
const sessionBinding = (sessionToken: string) => createHash('sha256').update(sessionToken).digest('base64url');

type SavedRequest = AuthorizationRequest & { session: string };

export function authorizationRequests(store: KeyValueStore) {
  return {
    /** Saves the request shown to the session of `sessionToken`: only that session may answer it. */
    save: (request: AuthorizationRequest, sessionToken: string) => {
      const saved: SavedRequest = { ...request, session: sessionBinding(sessionToken) };
      // Kept past the screen's expiry so a late answer can still be sent back as access_denied.
      return store.put(requestKey(request.id), JSON.stringify(saved), screenSeconds * 6);
    },
    /**
     * The request for its session's answer. Each screen is answered once: of concurrent answers
     * (a double click) only one gets it. Another session's answer is refused and leaves the
     * request for the session that was shown it.
     */
    async take(id: string, sessionToken: string): Promise<AuthorizationRequest | 'foreign' | null> {
      if (!/^[\w-]{32}$/.test(id)) return null;
      const [value] = await store.getMany([requestKey(id)]);
      if (!value) return null;
      const { session, ...request } = JSON.parse(value) as SavedRequest;
      if (session !== sessionBinding(sessionToken)) return 'foreign';
      if (!(await store.putIfAbsent(`${requestKey(id)}:answered`, '1', screenSeconds * 6))) return null;
      await store.delete([requestKey(id)]);
      return request;
    },
  };
}

export interface Issuance {
  config: Config;
  provider: Provider;
  prisma: PrismaClient;
  pairwiseSecret: string;
}

/** Allow: the grant and code in the store, then the consent receipt and consent.granted. */
export async function issueCode(
  { config, provider, prisma, pairwiseSecret }: Issuance,
  request: AuthorizationRequest,
  app: UsableApp,
  playerId: string,
): Promise<string> {
  const resource = config.baseUrl.href;
  const client = await provider.Client.find(request.clientId);
  if (!client) throw new Error('the app is no longer available');
  const sub = pairwiseSubject(pairwiseSecret, request.clientId, playerId);
  const grant = new provider.Grant({ accountId: sub, clientId: request.clientId });
  grant.addResourceScope(resource, request.scopes.join(' '));
  const grantId = await grant.save();
  const code = new provider.AuthorizationCode({
    jti: `${idFormats.authorizationCodePrefix}${randomBase64url(32)}`,
    client,
    accountId: sub,
    grantId,
    redirectUri: request.redirectUri,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: 'S256',
    scope: request.scopes.join(' '),
    resource,
    expiresWithSession: false,
  } as never);
  await grantConsent(prisma, pairwiseSecret, { app, playerId, grantId, scopes: request.scopes });
  // Saved last: a code exists only once its consent does.
  return code.save();
}
