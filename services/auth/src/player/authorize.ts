// The consent screen's authorization requests: checked by the contract's consent table
// (authorization-checks.ts), kept in the store while the screen is shown, and decided by the player. On Allow the
// grant and the single-use sva_ code are made with the provider's own models, so the token
// endpoint redeems them with its PKCE, redirect_uri, expiry and replay checks.
import { createHash } from 'node:crypto';
import type { UsableApp } from '@devplat/app-directory';
import type { Config } from '@devplat/config';
import { idFormats } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { grantConsent, pairwiseSubject } from '@devplat/domain/consents';
import { randomBase64url } from '@devplat/keys';
import { hashTag, type KeyValueStore } from '@devplat/kv';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import {
  type Arrived,
  authorizationChecks,
  checkedRequest,
  type RequestRules,
  ScreenRefusal,
} from './authorization-checks.ts';

export type { Arrived, RequestRules };

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

/**
 * The request checked by the consent table's rules (authorization-checks.ts), in order: a screen
 * refusal, the first OAuth error sent back to the app, or the request to show the player.
 */
export async function validateRequest(
  rules: RequestRules,
  query: Record<string, string | string[] | undefined>,
): Promise<Validation> {
  const request = checkedRequest(query);
  for (const [, check] of authorizationChecks) {
    try {
      await check(request, rules);
    } catch (refusal) {
      if (refusal instanceof ScreenRefusal) {
        const arrived = refusal.arrived && { ...refusal.arrived };
        return {
          outcome: 'refuse',
          title: 'This app cannot connect',
          message: refusal.message,
          ...(arrived && { arrived }),
        };
      }
      if (!(refusal instanceof errors.OIDCProviderError)) throw refusal;
      const params = {
        error: refusal.error,
        error_description: refusal.error_description,
        state: request.single('state') ?? undefined,
      };
      return { outcome: 'redirect', location: answerUrl(request.redirectUri as string, rules.issuer, params) };
    }
  }
  const state = request.single('state') ?? undefined;
  const authorization: AuthorizationRequest = {
    id: randomBase64url(24),
    clientId: request.clientId as string,
    redirectUri: request.redirectUri as string,
    ...(state !== undefined ? { state } : {}),
    scopes: request.scopes as string[],
    codeChallenge: request.single('code_challenge') as string,
    expiresAt: Date.now() + screenSeconds * 1000,
  };
  return { outcome: 'consent', request: authorization, app: request.app as UsableApp };
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
      // One round trip: the session's check, the answered mark and the delete in one step.
      const found = await store.takeOnce(
        requestKey(id),
        { field: 'session', equals: sessionBinding(sessionToken) },
        { key: `${requestKey(id)}:answered`, value: '1', ttlSeconds: screenSeconds * 6 },
      );
      if (found.outcome === 'kept') return 'foreign';
      if (found.outcome === 'none') return null;
      const { session: _session, ...request } = JSON.parse(found.value) as SavedRequest;
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
  const sub = pairwiseSubject(pairwiseSecret, request.clientId, playerId);
  const grant = new provider.Grant({ accountId: sub, clientId: request.clientId });
  grant.addResourceScope(resource, request.scopes.join(' '));
  const grantId = await grant.save();
  const code = new provider.AuthorizationCode({
    jti: `${idFormats.authorizationCodePrefix}${randomBase64url(32)}`,
    // Its id, not the provider's Client: `app` was found usable by this request already, and
    // Client.find would read the app's version again.
    clientId: request.clientId,
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
