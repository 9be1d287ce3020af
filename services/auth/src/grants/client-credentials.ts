// client_credentials: the scopes of an app token. No scope asks for every app scope the app holds;
// each asked scope must be a known app scope granted to the app, and never a user scope (contract,
// Authentication rule 6). oidc-provider drops an unknown scope silently and has no default scope per
// client, so the rule runs where the provider resolves the token's resource (resource-server.ts),
// after client authentication and before the grant reads `scope`, and sets the default there.

import { grantedAppScopes, type UsableApp } from '@devplat/app-directory';
import { appScopes, isScope } from '@devplat/contract';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { tokenRequestFacts } from '../token-request.ts';

/** The scopes an app token carries, or why the provider refuses them (invalid_scope). */
export function appTokenScopes(
  app: UsableApp | undefined,
  asked: string | undefined,
): { scope: string } | { refused: string; scope: string } {
  const granted: readonly string[] = app ? grantedAppScopes(app) : [];
  if (asked === undefined) {
    return granted.length ? { scope: granted.join(' ') } : { refused: 'the app holds no app scope', scope: '' };
  }
  for (const scope of asked.split(' ')) {
    if (!isScope(scope)) return { refused: `unknown scope ${scope}`, scope };
    if (!appScopes.includes(scope)) return { refused: `${scope} is a user scope: app tokens never carry it`, scope };
    if (!granted.includes(scope)) return { refused: `${scope} is not granted to this app`, scope };
  }
  return { scope: asked };
}

export function applyAppTokenScopes(ctx: KoaContextWithOIDC): void {
  const params = ctx.oidc.params as Record<string, unknown>;
  const scopes = appTokenScopes(tokenRequestFacts(ctx).app, params.scope as string | undefined);
  if ('refused' in scopes) throw new errors.InvalidScope(scopes.refused, scopes.scope);
  if (params.scope === undefined) params.scope = scopes.scope;
}
