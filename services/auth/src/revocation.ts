// RFC 7009 for our JWT access tokens, which the provider does not store and will not revoke: the
// provider authenticates the client and refuses the token (unsupported_token_type), and the answer
// boundary (provider-answers.ts) hands it here. An app token goes on the revoked list until it
// expires; a user token ends its consent. Unknown, garbage and foreign tokens are left alone.
import { accessTokenChecks, type Config, type Secrets } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import { recordRevokedToken } from '@devplat/domain/revocations';
import { createLocalJWKSet, jwtVerify } from 'jose';
import type Provider from 'oidc-provider';
import { publicJwks } from './internal.ts';
import type { JwtAccessTokenRevocation } from './provider-answers.ts';

export function revokeJwtAccessTokens(
  config: Config,
  secrets: Secrets,
  prisma: PrismaClient,
  provider: Provider,
): JwtAccessTokenRevocation {
  const keys = createLocalJWKSet(publicJwks(secrets));
  return async (clientId, token) => {
    let payload: Awaited<ReturnType<typeof jwtVerify>>['payload'];
    try {
      ({ payload } = await jwtVerify(token, keys, accessTokenChecks(config.baseUrl)));
    } catch {
      return; // not one of ours, or already expired: nothing to revoke
    }
    if (payload.client_id !== clientId || !payload.jti || !payload.exp) return;
    if (typeof payload.gid === 'string') {
      await provider.Grant.adapter.destroy(payload.gid);
      return;
    }
    await recordRevokedToken(prisma, payload.jti, new Date(payload.exp * 1000));
  };
}
