// The engine floor: oidc-provider by itself on Koa, configured as the platform configures it
// (services/auth/src/provider.ts: the same features, lifetimes, JWT access tokens for the one
// resource, Ed25519 keys, the same resource server and error answers), on a minimal Redis adapter,
// with only the essential work of each grant: the consent's liveness read before a refresh
// rotates. Nothing else of the platform: no request line, metrics, request log or usage, no app
// directory (one static client, its secret compared by the provider), no refresh-token families,
// no deferred single-use writes. What the chosen engine costs by itself, for the platform's
// overhead to be measured against.
import { randomBytes } from 'node:crypto';
import { generateSigningKey } from '@devplat/config';
import { limits } from '@devplat/contract';
import type { RedisClient } from '@devplat/kv';
import Provider, { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import { renderErrorAsJson } from '../services/auth/src/provider-answers.ts';
import { resourceServer } from '../services/auth/src/resource-server.ts';

/**
 * oidc-provider's storage at one Redis command per model operation, in the manner of the
 * provider's example Redis adapter: an entry is a JSON string under its model and id, read with its
 * consumed mark in one MGET; consume is one SET of that mark; an entry of a grant is written and
 * filed in the grant's set by one script, and revokeByGrantId reads that set (two commands, never
 * on the measured paths). No interactions or device codes: findByUid and findByUserCode find none.
 */
export function minimalRedisAdapter(redis: RedisClient) {
  const grantKey = (grantId: string) => `grant:${grantId}`;
  // The member filed is the entry's key as the adapter names it (ARGV), not as prefixed (KEYS).
  const filed = redis as RedisClient & {
    saveFiled(key: string, grant: string, value: string, ttl: number, member: string, grantTtl: number): Promise<void>;
  };
  filed.defineCommand('saveFiled', {
    numberOfKeys: 2,
    lua:
      "redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) redis.call('SADD', KEYS[2], ARGV[3]) " +
      "redis.call('EXPIRE', KEYS[2], ARGV[4]) return 1",
  });
  return (model: string): Adapter => {
    const key = (id: string) => `${model}:${id}`;
    return {
      async upsert(id: string, payload: AdapterPayload, expiresIn = limits.refreshTokenSeconds) {
        const { grantId } = payload;
        const value = JSON.stringify(payload);
        if (!grantId) return void (await redis.set(key(id), value, 'EX', expiresIn));
        // A grant's set lives as long as a grant may, the longest of the entries filed in it.
        await filed.saveFiled(key(id), grantKey(grantId), value, expiresIn, key(id), limits.refreshTokenSeconds);
      },
      async find(id: string) {
        const [value, consumed] = await redis.mget(key(id), `${key(id)}:consumed`);
        if (!value) return undefined;
        const payload = JSON.parse(value) as AdapterPayload;
        return consumed ? { ...payload, consumed: Number(consumed) } : payload;
      },
      async consume(id: string) {
        await redis.set(`${key(id)}:consumed`, Math.floor(Date.now() / 1000), 'EX', limits.refreshTokenSeconds);
      },
      async destroy(id: string) {
        await redis.del(key(id));
      },
      async revokeByGrantId(grantId: string) {
        const keys = await redis.smembers(grantKey(grantId));
        await redis.del(...keys, grantKey(grantId));
      },
      findByUid: async () => undefined,
      findByUserCode: async () => undefined,
    };
  };
}

export interface EngineSettings {
  /** The issuer and the one resource, as the platform's {base_url}. */
  issuer: string;
  client: { clientId: string; clientSecret: string; redirectUri: string };
  /** The claims the platform adds to an access token beside `gid` (env, csid, cns), taken from one of its tokens. */
  claims: Record<string, unknown>;
  /** The consent's liveness read: the active consent behind a grant, or null once it has ended. */
  consentOf: (grantId: string) => Promise<string | null>;
}

/**
 * oidc-provider with the platform's settings (services/auth/src/provider.ts, which builds them
 * around its own adapters and hooks, so they are restated here, in alphabetical order), on the
 * minimal adapter, with one static client.
 */
export function engineProvider(redis: RedisClient, { issuer, client, claims, consentOf }: EngineSettings): Provider {
  const { accessTokenSeconds: access, authorizationCodeSeconds: code, refreshTokenSeconds: family } = limits;
  const off = { enabled: false };
  const path = (name: string) => `/oauth/${name}`;
  return new Provider(issuer, {
    adapter: minimalRedisAdapter(redis),
    allowOmittingSingleRegisteredRedirectUri: false,
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    clientBasedCORS: () => false,
    clients: [
      {
        client_id: client.clientId,
        client_secret: client.clientSecret,
        grant_types: ['client_credentials', 'authorization_code', 'refresh_token'],
        id_token_signed_response_alg: 'EdDSA',
        redirect_uris: [client.redirectUri],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    expiresWithSession: async () => false,
    extraTokenClaims: async (_ctx, token) => ({ ...claims, ...('grantId' in token && { gid: token.grantId }) }),
    features: {
      clientCredentials: { enabled: true },
      devInteractions: off,
      introspection: off,
      resourceIndicators: {
        defaultResource: () => issuer,
        enabled: true,
        getResourceServerInfo: resourceServer(issuer),
        useGrantedResource: () => true,
      },
      revocation: { allowedPolicy: async (_ctx, each, token) => token.clientId === each.clientId, enabled: true },
      rpInitiatedLogout: off,
      userinfo: off,
    },
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    issueRefreshToken: async (_ctx, each) => each.grantTypeAllowed('refresh_token'),
    jwks: { keys: [{ ...generateSigningKey(), alg: 'EdDSA', use: 'sig' }] },
    pkce: { required: () => true },
    renderError: renderErrorAsJson,
    responseTypes: ['code'],
    // The essential work of a refresh: the consent's liveness read, then always a rotation.
    rotateRefreshToken: async (ctx) => {
      const grantId = ctx.oidc.entities.RefreshToken?.grantId;
      if (!grantId || !(await consentOf(grantId)))
        throw new errors.InvalidGrant('the consent behind this grant has ended');
      return true;
    },
    routes: { authorization: path('authorize'), jwks: path('jwks'), revocation: path('revoke'), token: path('token') },
    scopes: [],
    ttl: {
      AccessToken: access,
      AuthorizationCode: code,
      ClientCredentials: access,
      Grant: family,
      Interaction: 600,
      RefreshToken: family,
      Session: 600,
    },
  });
}
