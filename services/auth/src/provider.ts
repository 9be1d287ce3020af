// oidc-provider 9, configured for the contract: client credentials, authorization code with PKCE
// S256, rotating refresh tokens, revocation; JWT (at+jwt, EdDSA, 300 s) access tokens for one
// resource, {base_url}. Configuration only: each rule of the contract that runs inside the provider
// lives in a file named for it (client-authentication.ts, grants/*.ts, token-claims.ts,
// revoked-grants.ts, revocation.ts), and the hooks below only call it; every rewrite of the
// provider's own answers is in provider-answers.ts.
import { type AppDirectory, appDirectory } from '@devplat/app-directory';
import type { Config, Secrets } from '@devplat/config';
import { limits } from '@devplat/contract';
import type { PrismaClient, Query } from '@devplat/db';
import type { Logger } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import type { Metrics } from '@devplat/metrics';
import { noopTracing, type Tracing } from '@devplat/tracing';
import Provider, { type Configuration, type RefreshToken } from 'oidc-provider';
import { storeAdapter, storeFamilies } from './adapter.ts';
import { clientAdapter, compareHashedSecrets } from './client-authentication.ts';
import { consentOfGrant, rotateFamily } from './grants/refresh-token.ts';
import { renderErrorAsJson } from './provider-answers.ts';
import { refreshTokenAdapter, refreshTokenId } from './refresh-token-adapter.ts';
import { resourceServer } from './resource-server.ts';
import { endConsentOfRevokedGrant } from './revoked-grants.ts';
import { accessTokenClaims } from './token-claims.ts';

export interface ProviderDependencies {
  config: Config;
  secrets: Secrets;
  prisma: PrismaClient;
  /** The driver's plain statements: the consent check on every refresh and user token. */
  query: Query;
  store: KeyValueStore;
  metrics?: Metrics;
  tracing?: Tracing;
  /** Where a consent ended as a replay is noted (revoked-grants.ts). */
  logger?: Logger;
  /** The app directory to share with the token endpoint's own grant (app-tokens.ts); one of its own otherwise. */
  apps?: AppDirectory;
}

export function createProvider({
  config,
  secrets,
  prisma,
  query,
  store,
  metrics,
  tracing = noopTracing,
  logger,
  apps = appDirectory(prisma, store, metrics),
}: ProviderDependencies): Provider {
  const consents = consentOfGrant(query, metrics);
  const resource = config.baseUrl.href;
  const families = storeFamilies(store, {
    grantRevoked: endConsentOfRevokedGrant(prisma, secrets.pairwiseSecret, { logger, metrics }),
  });
  // Codes and refresh tokens are written in the format CREDENTIALS_AT_REST names, and read in both.
  const StoreAdapter = storeAdapter(store, families, config.credentialsAtRest);
  const refreshTokens = refreshTokenAdapter(store, families, config.credentialsAtRest);

  const provider = new Provider(resource, {
    adapter: class {
      // The Client model is the app registry in PostgreSQL; every other model is in the store,
      // refresh tokens one record per family.
      constructor(model: string) {
        // biome-ignore lint/correctness/noConstructorReturn: oidc-provider instantiates one adapter per model
        if (model === 'Client') return clientAdapter(apps) as never;
        // biome-ignore lint/correctness/noConstructorReturn: as above
        if (model === 'RefreshToken') return refreshTokens as never;
        // biome-ignore lint/correctness/noConstructorReturn: as above
        return new StoreAdapter(model) as never;
      }
    } as never,
    ...contractConfiguration(resource, secrets),
    rotateRefreshToken: (ctx) => tracing.span('oauth refresh token rotation', {}, () => rotateFamily(consents, ctx)),
    extraTokenClaims: accessTokenClaims(config.environment, consents),
  });
  compareHashedSecrets(provider, apps, tracing);
  // Each refresh token's id names its family (refresh-token-adapter.ts).
  Object.assign(provider.RefreshToken.prototype, {
    generateTokenId(this: RefreshToken) {
      return refreshTokenId(this.grantId as string, this.rotations);
    },
  });
  return provider;
}

/**
 * The provider's configuration as the contract sets it: grants, PKCE, lifetimes, routes, features,
 * keys and error answers, without the platform's stores, registry or hooks. createProvider adds
 * those; the benchmarks' engine floor (bench/engine-floor.ts) runs the engine on exactly this.
 */
export function contractConfiguration(
  resource: string,
  keys: Pick<Secrets, 'signingKeys' | 'cookieKeys'>,
): Configuration {
  return {
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    clientBasedCORS: () => false,
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    scopes: [],
    responseTypes: ['code'],
    pkce: { required: () => true },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    allowOmittingSingleRegisteredRedirectUri: false,
    ttl: {
      AccessToken: limits.accessTokenSeconds,
      ClientCredentials: limits.accessTokenSeconds,
      AuthorizationCode: limits.authorizationCodeSeconds,
      RefreshToken: limits.refreshTokenSeconds,
      Grant: limits.refreshTokenSeconds,
      Interaction: 600,
      Session: 600,
    },
    jwks: { keys: keys.signingKeys.map((key) => ({ ...key, alg: 'EdDSA', use: 'sig' })) },
    cookies: { keys: keys.cookieKeys },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      revocation: '/oauth/revoke',
      jwks: '/oauth/jwks',
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      introspection: { enabled: false },
      userinfo: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      revocation: {
        enabled: true,
        // A foreign token is answered 200 like an unknown one, and left alone.
        allowedPolicy: async (_ctx, client, token) => token.clientId === client.clientId,
      },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resource,
        useGrantedResource: () => true,
        getResourceServerInfo: resourceServer(resource),
      },
    },
    renderError: renderErrorAsJson,
  };
}
