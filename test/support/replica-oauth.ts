// OAuth against the replicas of a split deployment (test/support/services.ts), as an app configured
// by hand would see one of them: oauth4webapi for the grants, the player client for the consent.
// `headers` go on the token request (a traceparent, say).
import * as oauth from 'oauth4webapi';
import { insecure } from './oauth.ts';
import { consentOverHttp } from './players.ts';
import type { Deployment, RunningProcess } from './services.ts';

/** An authorization server as an app configured by hand would see one replica of it. */
export function replicaServer(deployment: Deployment, auth: RunningProcess, playerClient = deployment.playerClient) {
  return {
    issuer: deployment.base,
    token_endpoint: `${auth.origin}/developer/v1/oauth/token`,
    authorization_endpoint: `${playerClient}/oauth/authorize`,
  } satisfies oauth.AuthorizationServer;
}

export async function clientCredentialsToken(
  as: oauth.AuthorizationServer,
  clientId: string,
  clientSecret: string,
  headers?: Record<string, string>,
) {
  const response = await oauth.clientCredentialsGrantRequest(
    as,
    { client_id: clientId },
    oauth.ClientSecretBasic(clientSecret),
    new URLSearchParams({ scope: 'city.public.read' }),
    { ...insecure, headers },
  );
  return (await oauth.processClientCredentialsResponse(as, { client_id: clientId }, response)).access_token;
}

/** The authorization code flow with PKCE through one replica's player client and token endpoint. */
export async function userToken(
  as: oauth.AuthorizationServer,
  app: { clientId: string; clientSecret: string },
  player: { username: string; password: string },
  headers?: Record<string, string>,
) {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope: 'profile.basic.read',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const callback = await consentOverHttp(url.href, player);
  const client = { client_id: app.clientId };
  const params = oauth.validateAuthResponse(as, client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    oauth.ClientSecretBasic(app.clientSecret),
    params,
    redirectUri,
    verifier,
    { ...insecure, headers },
  );
  return (await oauth.processAuthorizationCodeResponse(as, client, response)).access_token;
}

export const bearer = (base: string, path: string, token: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { headers: { ...headers, authorization: `Bearer ${token}` } });
