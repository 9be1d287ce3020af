// A grant the provider destroys ends the consent behind it, before the answer leaves: a replayed code
// (code_replay), a replayed refresh token (refresh_token_replay), a revoked refresh token or user
// access token (token_revocation). The store adapter calls this when it deletes a grant; the reason
// is read from the request doing it.
import type { PrismaClient, RevocationReason } from '@devplat/db';
import { endConsent } from '@devplat/domain/consents';
import { currentRequest } from './token-request.ts';

function revocationReason(): RevocationReason {
  const oidc = currentRequest()?.oidc;
  if (oidc?.route === 'token')
    return oidc.params?.grant_type === 'refresh_token' ? 'refresh_token_replay' : 'code_replay';
  return 'token_revocation';
}

export function endConsentOfRevokedGrant(prisma: PrismaClient, pairwiseSecret: string) {
  return async (grantId: string): Promise<void> => {
    await endConsent(prisma, pairwiseSecret, { grantId }, revocationReason());
  };
}
