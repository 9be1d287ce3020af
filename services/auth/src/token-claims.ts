// The claims every access token carries beside sub, scope, client_id, jti, iat and exp: what the
// api's liveness check needs to find the token's credentials again. `env` (the deployment's
// environment) and `csid` (the client secret used); a user token also `gid` (its grant) and `cns`
// (its consent receipt), and is issued only while that consent is active.
import type { Environment } from '@devplat/config';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { activeConsentId, type ConsentOfGrant } from './grants/refresh-token.ts';
import { tokenRequestFacts } from './token-request.ts';

export function accessTokenClaims(environment: Environment, consents: ConsentOfGrant) {
  return async (ctx: KoaContextWithOIDC, token: object) => {
    const facts = tokenRequestFacts(ctx);
    const claims = { env: environment, csid: facts.clientSecretId };
    const grantId = 'grantId' in token ? (token.grantId as string | undefined) : undefined;
    if (!grantId) return claims;
    return { ...claims, gid: grantId, cns: await activeConsentId(consents, grantId, facts) };
  };
}
