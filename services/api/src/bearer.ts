// Bearer access tokens (RFC 6750): at+jwt, EdDSA, from this deployment's issuer, for this
// audience and environment, verified against the auth service's JWKS (fetched remotely, cached,
// refetched on an unknown kid with a cooldown). A verified token is remembered by its exact bytes
// until it expires; liveness is still checked on every call (liveness.ts).
import { accessTokenChecks, type Config } from '@devplat/config';
import { isUuid } from '@devplat/db';
import { DependencyUnavailableError } from '@devplat/errors';
import { ProblemError } from '@devplat/http';
import { createRemoteJWKSet, customFetch, type JWTVerifyGetKey, jwtVerify } from 'jose';
import type { Context } from 'koa';

export interface AccessToken {
  jti: string;
  sub: string;
  clientId: string;
  scopes: Set<string>;
  /** Expiry in ms since epoch. */
  expiresAt: number;
  /** The client secret the token was obtained with. */
  secretId: string;
  /** The consent receipt of a user token; absent on app tokens. */
  consentId?: string;
}

export interface TokenVerifier {
  verify(token: string): Promise<AccessToken>;
}

const maxCached = 10_000;

/** 401 with RFC 6750's invalid_token: the credential is missing its validity, not its scope. */
export function invalidToken(description: string): ProblemError {
  return new ProblemError('INVALID_TOKEN', `The access token is not valid: ${description}.`, {
    'WWW-Authenticate': `Bearer error="invalid_token", error_description="${description}"`,
  });
}

/**
 * The refusal of a token of ours that verified but has expired: its client is known (its signature
 * holds), so the call still goes to that app's request log.
 */
export class ExpiredTokenProblem extends ProblemError {
  readonly clientId: string | undefined;
  constructor(clientId: string | undefined) {
    const { code, detail, headers } = invalidToken('the token has expired');
    super(code, detail, headers);
    this.clientId = clientId;
  }
}

/** RFC 6750's b64token; checked when a token is first verified, not on every call with it. */
const token68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const notBearer = () => invalidToken('the Authorization header is not a Bearer token');

/** The signature part: unique enough to find a remembered token without hashing all of it. */
const signatureOf = (token: string) => token.slice(token.lastIndexOf('.') + 1);

export function tokenVerifier(config: Config, keys: JWTVerifyGetKey): TokenVerifier {
  const verified = new Map<string, { token: string; accessToken: AccessToken }>();
  return {
    async verify(token) {
      const known = verified.get(signatureOf(token));
      if (known?.token === token && known.accessToken.expiresAt > Date.now()) return known.accessToken;
      if (!token68.test(token)) throw notBearer();
      let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
      try {
        ({ payload } = await jwtVerify(token, keys, {
          ...accessTokenChecks(config.baseUrl),
          requiredClaims: ['exp', 'iat', 'jti', 'sub'],
        }));
      } catch (error) {
        const code = (error as { code?: string }).code;
        if (code === 'ERR_JWT_EXPIRED') {
          // jose checks the claims only once the signature holds: the payload is the one we signed.
          const clientId = (error as { payload?: { client_id?: unknown } }).payload?.client_id;
          throw new ExpiredTokenProblem(typeof clientId === 'string' ? clientId : undefined);
        }
        // The key set could not be fetched (refused, timed out, not 200): nothing can be checked.
        if (code === 'ERR_JWKS_TIMEOUT' || code === 'ERR_JOSE_GENERIC' || error instanceof TypeError) {
          throw new DependencyUnavailableError('the auth service key set', { cause: error });
        }
        throw invalidToken('the token could not be verified');
      }
      const { sub, jti, exp, client_id: clientId, scope, env, csid, cns } = payload as Record<string, unknown>;
      if (env !== config.environment) throw invalidToken('the token is for another environment');
      if (typeof clientId !== 'string' || typeof scope !== 'string' || typeof csid !== 'string' || !isUuid(csid)) {
        throw invalidToken('the token lacks required claims');
      }
      if (cns !== undefined && (typeof cns !== 'string' || !isUuid(cns)))
        throw invalidToken('the token lacks required claims');
      const accessToken: AccessToken = {
        jti: jti as string,
        sub: sub as string,
        clientId,
        scopes: new Set(scope.split(' ')),
        expiresAt: (exp as number) * 1000,
        secretId: csid,
        ...(typeof cns === 'string' ? { consentId: cns } : {}),
      };
      if (verified.size >= maxCached) verified.delete(verified.keys().next().value as string);
      verified.set(signatureOf(token), { token, accessToken });
      return accessToken;
    },
  };
}

export type RemoteKeys = ReturnType<typeof createRemoteJWKSet>;

/** The auth service's JWKS over HTTP (AUTH_INTERNAL_URL/jwks.json), fetched with `fetch` (a traced one). */
export function remoteKeys(config: Config, fetch: typeof globalThis.fetch = globalThis.fetch): RemoteKeys {
  return createRemoteJWKSet(new URL('/jwks.json', config.authInternalUrl), {
    timeoutDuration: 2_000,
    cooldownDuration: 30_000,
    cacheMaxAge: 10 * 60_000,
    [customFetch]: fetch,
  });
}

const scheme = 'bearer ';

/**
 * The credential of `Authorization: Bearer <credential>` (the scheme in any case); no header is a
 * 401 naming the scheme. The verifier checks the credential's syntax.
 */
export function bearerToken(ctx: Context): string {
  const header = ctx.get('Authorization');
  if (!header) {
    throw new ProblemError('INVALID_TOKEN', 'An access token is required: send Authorization: Bearer <token>.', {
      'WWW-Authenticate': 'Bearer realm="developer-platform"',
    });
  }
  if (header.slice(0, scheme.length).toLowerCase() !== scheme) throw notBearer();
  return header.slice(scheme.length);
}

/** Readiness: the auth service's keys are loaded (fetched now if they never were). */
export function signingKeysCheck(keys: RemoteKeys): { name: string; check(): Promise<void> } {
  return {
    name: 'signing-keys',
    check: async () => {
      if (keys.jwks()?.keys.length) return;
      await keys.reload();
      if (!keys.jwks()?.keys.length) throw new Error('the auth service publishes no signing keys');
    },
  };
}
