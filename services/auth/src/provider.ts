// oidc-provider 9, configured for the contract: client credentials, authorization code with
// PKCE S256, rotating refresh tokens, revocation; JWT (at+jwt, EdDSA, 300 s) access tokens for
// one resource, {base_url}. Clients are the apps in PostgreSQL; grants live in the store.
import { type AppDirectory, appDirectory, grantedAppScopes, matchSecret, type UsableApp } from '@devplat/apps';
import type { Config, Secrets } from '@devplat/config';
import { appScopes, limits, scopes as scopeCatalogue } from '@devplat/contract';
import type { PrismaClient, RevocationReason } from '@devplat/db';
import type { KeyValueStore } from '@devplat/kv';
import Provider, { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { storeAdapter } from './adapter.ts';
import { endConsent } from './consents.ts';

export interface ProviderDependencies {
  config: Config;
  secrets: Secrets;
  prisma: PrismaClient;
  store: KeyValueStore;
}

/** What the request that is being served learnt about its client, kept on ctx.state. */
interface ClientState {
  app?: UsableApp;
  clientSecretId?: string;
}

const currentState = (): ClientState => (Provider.ctx?.state ?? {}) as ClientState;

// Why a grant is being revoked, read from the request doing it.
function revocationReason(): RevocationReason {
  const oidc = (Provider.ctx as KoaContextWithOIDC | undefined)?.oidc;
  if (oidc?.route === 'token')
    return oidc.params?.grant_type === 'refresh_token' ? 'refresh_token_replay' : 'code_replay';
  return 'token_revocation';
}

const allScopes = Object.keys(scopeCatalogue).join(' ');

// client_credentials: no scope asks for every app scope the app holds; each asked scope must be a
// known app scope granted to the app. Unknown scopes would otherwise be dropped silently.
function checkAppTokenScopes(ctx: KoaContextWithOIDC): void {
  const app = currentState().app;
  const granted = app ? grantedAppScopes(app) : [];
  const asked = ctx.oidc.params?.scope as string | undefined;
  if (asked === undefined) {
    if (granted.length === 0) throw new errors.InvalidScope('the app holds no app scope', '');
    (ctx.oidc.params as Record<string, unknown>).scope = granted.join(' ');
    return;
  }
  for (const scope of asked.split(' ')) {
    if (!Object.hasOwn(scopeCatalogue, scope)) throw new errors.InvalidScope(`unknown scope ${scope}`, scope);
    if (!(appScopes as readonly string[]).includes(scope)) {
      throw new errors.InvalidScope(`${scope} is a user scope: app tokens never carry it`, scope);
    }
    if (!(granted as string[]).includes(scope))
      throw new errors.InvalidScope(`${scope} is not granted to this app`, scope);
  }
}

// authorization_code: the optional scope (not a parameter oidc-provider reads for this grant)
// must be a subset of what the player consented to, and narrows the tokens to it.
function narrowCodeScopes(ctx: KoaContextWithOIDC): void {
  const asked = (ctx.oidc.body as Record<string, unknown> | undefined)?.scope;
  const code = ctx.oidc.entities.AuthorizationCode;
  if (asked === undefined || !code) return;
  if (typeof asked !== 'string') throw new errors.InvalidRequest('scope must appear once');
  const requested = [...new Set(asked.split(' ').filter(Boolean))];
  const consented = code.scopes;
  const outside = requested.find((scope) => !consented.has(scope));
  if (outside !== undefined) throw new errors.InvalidScope(`${outside} was not consented`, outside);
  if (requested.length > 0) code.scope = requested.join(' ');
}

export function createProvider({ config, secrets, prisma, store }: ProviderDependencies): Provider {
  const resource = config.baseUrl.href;
  const apps = appDirectory(prisma, store);
  const Adapter = storeAdapter(store, {
    grantRevoked: async (grantId) => {
      await endConsent(prisma, secrets.pairwiseSecret, { grantId }, revocationReason());
    },
  });
  const GenericAdapter = Adapter as unknown as new (model: string) => object;

  const provider = new Provider(config.baseUrl.href, {
    adapter: class {
      // The Client model is the app registry in PostgreSQL; every other model is in the store.
      constructor(model: string) {
        // biome-ignore lint/correctness/noConstructorReturn: oidc-provider instantiates one adapter per model
        if (model === 'Client') return clientAdapter(apps) as never;
        // biome-ignore lint/correctness/noConstructorReturn: as above
        return new GenericAdapter(model) as never;
      }
    } as never,
    clientAuthMethods: ['client_secret_basic', 'client_secret_post'],
    clientBasedCORS: () => false,
    findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
    scopes: [],
    responseTypes: ['code'],
    pkce: { required: () => true },
    rotateRefreshToken: true,
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
    jwks: { keys: secrets.signingKeys.map((key) => ({ ...key, alg: 'EdDSA', use: 'sig' })) },
    cookies: { keys: secrets.cookieKeys },
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
        getResourceServerInfo: async (ctx, indicator) => {
          if (indicator !== resource) throw new errors.InvalidTarget();
          if (ctx.oidc.route === 'token' && ctx.oidc.params?.grant_type === 'client_credentials') {
            checkAppTokenScopes(ctx);
          }
          if (ctx.oidc.route === 'token' && ctx.oidc.params?.grant_type === 'authorization_code') {
            narrowCodeScopes(ctx);
          }
          return {
            scope: allScopes,
            audience: resource,
            accessTokenTTL: limits.accessTokenSeconds,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'EdDSA' } },
          };
        },
      },
    },
    // What the api's liveness check needs beside sub, scope and client_id.
    // The provider answers HTML to a browser-like Accept header; the contract allows only JSON here.
    renderError: async (ctx, out) => {
      ctx.type = 'json';
      ctx.body = out;
    },
    // A user token also names its grant and consent, and is issued only while that consent is active.
    extraTokenClaims: async (_ctx, token) => {
      const claims = { env: config.environment, csid: currentState().clientSecretId };
      const grantId = 'grantId' in token ? token.grantId : undefined;
      if (!grantId) return claims;
      const consent = await prisma.consent.findFirst({ where: { grantId, status: 'active' }, select: { id: true } });
      if (!consent) throw new errors.InvalidGrant('the consent behind this grant has ended');
      return { ...claims, gid: grantId, cns: consent.id };
    },
  });

  provider.Client.prototype.compareClientSecret = async function compareClientSecret(actual: string) {
    const state = currentState();
    // Client.find loaded this app (with its active secret hashes) earlier in the same request.
    const app = state.app?.clientId === this.clientId ? state.app : await apps.find(this.clientId);
    const secret = app ? matchSecret(actual, app.secrets) : null;
    if (!app || !secret) return false;
    state.app = app;
    state.clientSecretId = secret.id;
    return true;
  };
  return provider;
}

// Client metadata from the app registry. Only usable apps (active sandbox apps of active full
// accounts) exist for the provider; the secret itself is never here: compareClientSecret checks
// the hashes.
function clientAdapter(apps: AppDirectory) {
  const unused = async () => undefined;
  return {
    async find(clientId: string) {
      const app = await apps.find(clientId);
      if (!app) return undefined;
      currentState().app = app;
      const canRedirect = app.redirectUris.length > 0;
      return {
        client_id: app.clientId,
        client_secret: 'hashed-secrets-are-compared-by-compareClientSecret',
        client_name: app.name,
        grant_types: canRedirect
          ? ['client_credentials', 'authorization_code', 'refresh_token']
          : ['client_credentials'],
        response_types: canRedirect ? ['code'] : [],
        redirect_uris: app.redirectUris,
        token_endpoint_auth_method: 'client_secret_basic',
        id_token_signed_response_alg: 'EdDSA',
      };
    },
    upsert: unused,
    consume: unused,
    destroy: unused,
    revokeByGrantId: unused,
    findByUid: unused,
    findByUserCode: unused,
  };
}
