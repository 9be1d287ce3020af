// The one resource server, {base_url}: JWT access tokens (at+jwt, EdDSA, 300 s). oidc-provider asks
// for it on every token request, after client authentication and before the grant reads the scope a
// token may carry, which makes it the place for the grants' own scope rules.
import { limits, scopeNames } from '@devplat/contract';
import { errors, type KoaContextWithOIDC, type ResourceServer } from 'oidc-provider';
import { narrowCodeScopes } from './grants/authorization-code.ts';
import { applyAppTokenScopes } from './grants/client-credentials.ts';

const allScopes = scopeNames.join(' ');

export function resourceServer(resource: string) {
  return async (ctx: KoaContextWithOIDC, indicator: string): Promise<ResourceServer> => {
    if (indicator !== resource) throw new errors.InvalidTarget();
    if (ctx.oidc.route === 'token') {
      const grantType = ctx.oidc.params?.grant_type;
      if (grantType === 'client_credentials') applyAppTokenScopes(ctx);
      if (grantType === 'authorization_code') narrowCodeScopes(ctx);
    }
    return {
      scope: allScopes,
      audience: resource,
      accessTokenTTL: limits.accessTokenSeconds,
      accessTokenFormat: 'jwt',
      jwt: { sign: { alg: 'EdDSA' } },
    };
  };
}
