// client_credentials: the scopes of an app token. No scope asks for every app scope the app holds;
// each asked scope must be a known app scope granted to the app, and never a user scope (contract,
// Authentication rule 6). oidc-provider drops an unknown scope silently and has no default scope per
// client, so the rule runs where the provider resolves the token's resource (resource-server.ts),
// after client authentication and before the grant reads `scope`, and sets the default there.

import { grantedAppScopes } from '@devplat/apps';
import { appScopes, isScope } from '@devplat/contract';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { tokenRequestFacts } from '../token-request.ts';

export function applyAppTokenScopes(ctx: KoaContextWithOIDC): void {
  const { app } = tokenRequestFacts(ctx);
  const granted: readonly string[] = app ? grantedAppScopes(app) : [];
  const params = ctx.oidc.params as Record<string, unknown>;
  const asked = params.scope as string | undefined;
  if (asked === undefined) {
    if (granted.length === 0) throw new errors.InvalidScope('the app holds no app scope', '');
    params.scope = granted.join(' ');
    return;
  }
  for (const scope of asked.split(' ')) {
    if (!isScope(scope)) throw new errors.InvalidScope(`unknown scope ${scope}`, scope);
    if (!appScopes.includes(scope)) {
      throw new errors.InvalidScope(`${scope} is a user scope: app tokens never carry it`, scope);
    }
    if (!granted.includes(scope)) throw new errors.InvalidScope(`${scope} is not granted to this app`, scope);
  }
}
