// The app side of the tests: oauth4webapi against a running platform, over plain http: discovery,
// the authorization request with PKCE, the code's redemption, revocation.
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import { call } from './http.ts';

/** oauth4webapi refuses http unless told: the test platforms run on loopback http. */
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** RFC 8414 discovery as a real client does it (the path-inserted location). */
export async function discover(base: string): Promise<oauth.AuthorizationServer> {
  const issuer = new URL(base);
  return oauth.processDiscoveryResponse(
    issuer,
    await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
  );
}

/** client_secret_basic's Authorization header value. */
export function basicAuth(clientId: string, clientSecret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
}

/** POST /oauth/revoke with client_secret_basic; resolves with the raw response. */
export function revokeToken(base: string, client: { clientId: string; clientSecret: string }, token: string) {
  return fetch(`${base}/oauth/revoke`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(client.clientId, client.clientSecret),
    },
    body: new URLSearchParams({ token }),
  });
}

/** POST {base}/oauth/token with client_secret_basic, the answer checked against the contract. */
export function tokenRequest(base: string, app: AppClient, fields: Record<string, string>) {
  return call(base, '/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams(fields).toString(),
  });
}

export interface AppClient {
  clientId: string;
  clientSecret: string;
}

export interface UserTokens {
  accessToken: string;
  refreshToken: string;
  /** The consent receipt the tokens were issued under. */
  consentId: string;
}

/** Redeems the code the consent screen sent back, as the app does with oauth4webapi. */
export async function redeemCode(
  base: string,
  app: AppClient,
  callback: URL,
  redirectUri: string,
  state: string | typeof oauth.expectNoState,
  verifier: string,
  authentication: 'client_secret_basic' | 'client_secret_post' = 'client_secret_basic',
): Promise<UserTokens> {
  const as = await discover(base);
  const client = { client_id: app.clientId };
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    (authentication === 'client_secret_basic' ? oauth.ClientSecretBasic : oauth.ClientSecretPost)(app.clientSecret),
    params,
    redirectUri,
    verifier,
    insecure,
  );
  const result = await oauth.processAuthorizationCodeResponse(as, client, response);
  return {
    accessToken: result.access_token,
    refreshToken: result.refresh_token as string,
    consentId: decodeJwt(result.access_token).cns as string,
  };
}

/** The authorization URL of a fresh request, with its state and PKCE verifier. */
export async function authorizationRequest(base: string, clientId: string, redirectUri: string, scope: string) {
  const as = await discover(base);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  return { url: url.href, state, verifier };
}
