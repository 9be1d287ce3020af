// The engine floor: oidc-provider by itself on Koa, on the platform's own configuration
// (contractConfiguration in services/auth/src/provider.ts: the same features, lifetimes, JWT
// access tokens for the one resource, Ed25519 keys, resource server and error answers), on a
// minimal Redis adapter, with only the essential work of each grant: the consent's liveness read
// before a refresh rotates. Nothing else of the platform: no request line, metrics, request log or
// usage, no app directory (one static client, its secret compared by the provider), no
// refresh-token families, no deferred single-use writes. What the chosen engine costs by itself,
// for the platform's overhead to be measured against.
import { randomBytes } from 'node:crypto';
import { generateSigningKey } from '@devplat/config';
import { limits } from '@devplat/contract';
import type { RedisClient } from '@devplat/kv';
import Provider, { type Adapter, type AdapterPayload, errors } from 'oidc-provider';
import { contractConfiguration } from '../services/auth/src/provider.ts';

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
 * oidc-provider with the platform's configuration (contractConfiguration, the same object the
 * platform's provider is built on) on the minimal adapter, with one static client and only the
 * essential work in its hooks.
 */
export function engineProvider(redis: RedisClient, { issuer, client, claims, consentOf }: EngineSettings): Provider {
  return new Provider(issuer, {
    ...contractConfiguration(issuer, {
      signingKeys: [generateSigningKey()],
      cookieKeys: [randomBytes(32).toString('base64url')],
    }),
    adapter: minimalRedisAdapter(redis),
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
    extraTokenClaims: async (_ctx, token) => ({ ...claims, ...('grantId' in token && { gid: token.grantId }) }),
    // The essential work of a refresh: the consent's liveness read, then always a rotation.
    rotateRefreshToken: async (ctx) => {
      const grantId = ctx.oidc.entities.RefreshToken?.grantId;
      if (!grantId || !(await consentOf(grantId)))
        throw new errors.InvalidGrant('the consent behind this grant has ended');
      return true;
    },
  });
}
