// authorization_code: code redemption. The provider checks the code's client, redirect_uri, expiry
// and PKCE (S256) verifier; the store adapter (adapter.ts) makes its single use atomic and revokes
// the consent when a used code comes back. What is ours is the optional `scope`, which oidc-provider
// does not read for this grant: a subset of what the player consented to, narrowing the tokens to it.
// It runs where the provider resolves the token's resource (resource-server.ts): the code is loaded
// by then and its scope not yet read.
import { errors, type KoaContextWithOIDC } from 'oidc-provider';

export function narrowCodeScopes(ctx: KoaContextWithOIDC): void {
  const asked = (ctx.oidc.body as Record<string, unknown> | undefined)?.scope;
  const code = ctx.oidc.entities.AuthorizationCode;
  if (asked === undefined || !code) return;
  if (typeof asked !== 'string') throw new errors.InvalidRequest('scope must appear once');
  const requested = [...new Set(asked.split(' ').filter(Boolean))];
  const outside = requested.find((scope) => !code.scopes.has(scope));
  if (outside !== undefined) throw new errors.InvalidScope(`${outside} was not consented`, outside);
  if (requested.length > 0) code.scope = requested.join(' ');
}
