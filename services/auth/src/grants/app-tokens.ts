// client_credentials, answered ahead of the provider when the request is one it would grant: the
// token endpoint's busiest grant spent more on oidc-provider's machinery (parameters, models, the
// Client, its answer) than on the token itself, and its throughput was 42% of a bare signing route
// (profile: docs/benchmarks.md, "Token issuance: where the time goes").
//
// Only a request the provider would answer 200 is answered here: a form with grant_type
// client_credentials and at most a scope, each once; HTTP Basic credentials of a usable app (the
// same app directory, so the app's version is read on every call) with one of its active secrets
// (compared by hash in constant time); scopes the app holds. Anything else (another grant, another
// authentication method, a parameter more, a wrong secret, a scope refused) goes on to the provider
// with the body already read, and the provider answers it exactly as before, refusals included.
// The token is the one the provider would sign: the same key, header and claims (tested against
// the provider's own in test/contract/oauth-client-credentials.test.ts).
import { createPrivateKey, type KeyObject } from 'node:crypto';
import type { AppDirectory, UsableApp } from '@devplat/app-directory';
import type { Config, Secrets } from '@devplat/config';
import { limits } from '@devplat/contract';
import { DependencyUnavailableError } from '@devplat/errors';
import { type Logger, readBody, readyJson, sendReady } from '@devplat/http';
import { matchingSecret, randomBase64url } from '@devplat/keys';
import type { Tracing } from '@devplat/tracing';
import { SignJWT } from 'jose';
import type { Context, Middleware } from 'koa';
import { tokenServiceUnavailable } from '../provider-answers.ts';
import { tokenRequestFacts } from '../token-request.ts';
import { appTokenScopes } from './client-credentials.ts';

// What the provider's CORS step adds to a token answer to a request without an Origin (one with an
// Origin is the provider's to refuse: no app may call the token endpoint from a browser).
const corsHeaders = [
  'Vary',
  'Origin',
  'Access-Control-Allow-Origin',
  '*',
  'Access-Control-Expose-Headers',
  'WWW-Authenticate',
];

/** A form this small is read here; a larger one (or one of unknown length) is the provider's to read. */
const readLimit = 4 * 1024;

/** The client_id and secret of an HTTP Basic header (RFC 6749 §2.3.1: each form-urlencoded). */
function basicCredentials(header: string): { clientId: string; secret: string } | null {
  if (!header.startsWith('Basic ')) return null;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 1) return null;
  try {
    const decode = (part: string) => decodeURIComponent(part.replace(/\+/g, '%20'));
    return { clientId: decode(decoded.slice(0, colon)), secret: decode(decoded.slice(colon + 1)) };
  } catch {
    return null;
  }
}

/** grant_type=client_credentials and at most a scope, each once; null for anything else. */
function appTokenRequest(body: string): { scope?: string } | null {
  const fields = new URLSearchParams(body);
  const names = [...fields.keys()];
  if (new Set(names).size !== names.length || fields.get('grant_type') !== 'client_credentials') return null;
  if (names.some((name) => name !== 'grant_type' && name !== 'scope')) return null;
  const scope = fields.get('scope');
  return scope === null ? {} : { scope };
}

/** The scopes the token carries, or null when the provider would refuse them or see them twice. */
function grantedScopes(app: UsableApp, asked: string | undefined): string | null {
  const scopes = appTokenScopes(app, asked);
  if ('refused' in scopes) return null;
  const listed = scopes.scope.split(' ');
  return new Set(listed).size === listed.length ? scopes.scope : null;
}

export interface AppTokenDependencies {
  config: Pick<Config, 'baseUrl' | 'environment'>;
  secrets: Pick<Secrets, 'signingKeys'>;
  apps: AppDirectory;
  tracing: Tracing;
  /** Where a 503 names the store that failed. */
  logger: Logger;
}

export function appTokens({ config, secrets, apps, tracing, logger }: AppTokenDependencies): Middleware {
  const issuer = config.baseUrl.href;
  // The provider signs with the first key of its JWKS that can (provider.ts); so does this.
  const [signingKey] = secrets.signingKeys;
  if (!signingKey) throw new Error('no signing key');
  const key: KeyObject = createPrivateKey({ key: signingKey as never, format: 'jwk' });

  const issue = async (ctx: Context, app: UsableApp, secretId: string, scope: string) => {
    const now = Math.floor(Date.now() / 1000);
    const accessToken = await new SignJWT({
      env: config.environment,
      csid: secretId,
      jti: randomBase64url(32), // 43 characters, as the provider's
      sub: app.clientId,
      iat: now,
      exp: now + limits.accessTokenSeconds,
      scope,
      client_id: app.clientId,
      iss: issuer,
      aud: issuer,
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: signingKey.kid })
      .sign(key);
    const facts = tokenRequestFacts(ctx);
    facts.app = app;
    facts.clientSecretId = secretId;
    facts.grantType = 'client_credentials';
    ctx.state.clientId = app.clientId;
    const answer = { access_token: accessToken, expires_in: limits.accessTokenSeconds, token_type: 'Bearer', scope };
    sendReady(ctx, { ...readyJson(answer), headers: corsHeaders });
  };

  /** The usable app and the secret that matched (compared by hash in constant time), or null. */
  const authenticate = async (ctx: Context, clientId: string, presented: string) => {
    let app: UsableApp | null;
    try {
      app = await apps.find(clientId);
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
      // As the provider's path answers a store it could not reach.
      throw tokenServiceUnavailable(ctx, error, logger);
    }
    const secret = app && matchingSecret(presented, app.secrets);
    return app && secret ? { app, secretId: secret.id } : null;
  };

  return async (ctx, next) => {
    const length = Number(ctx.get('Content-Length'));
    const credentials = basicCredentials(ctx.get('Authorization'));
    const plain = ctx.is('application/x-www-form-urlencoded') && !ctx.get('Origin');
    if (!credentials || !plain || !(length > 0 && length <= readLimit)) {
      return next();
    }
    const body = await readBody(ctx, readLimit, 'form');
    // The provider reads a body already read from here (its fallback for an upstream parser).
    (ctx.request as { body?: unknown }).body = Buffer.from(body);
    const request = appTokenRequest(body);
    if (!request) return next();
    const { clientId } = credentials;
    const authenticated = await tracing.span(
      'oauth client authentication',
      { 'devplat.oauth.client_id': clientId },
      () => authenticate(ctx, clientId, credentials.secret),
    );
    const scope = authenticated && grantedScopes(authenticated.app, request.scope);
    if (!authenticated || !scope) return next();
    // The provider's route, as its router names it for the request metrics and the server span.
    (ctx as { _matchedRoute?: string })._matchedRoute = '/oauth/token';
    await issue(ctx, authenticated.app, authenticated.secretId, scope);
  };
}
