// A grant the provider destroys ends the consent behind it, before the answer leaves: a replayed code
// (code_replay), a replayed refresh token (refresh_token_replay), a revoked refresh token or user
// access token (token_revocation). The store adapter calls this when it deletes a grant; the reason
// is read from the request doing it. A consent ended as a replay costs a player their connection to
// the app, so each is a warn line (which consent, which app, which request, why) and a count.
import type { PrismaClient, RevocationReason } from '@devplat/db';
import { endConsentOfGrant } from '@devplat/domain/consents';
import type { Logger } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import type { KoaContextWithOIDC } from 'oidc-provider';
import { currentRequest } from './token-request.ts';

function revocationReason(oidc: KoaContextWithOIDC['oidc'] | undefined): RevocationReason {
  if (oidc?.route === 'token')
    return oidc.params?.grant_type === 'refresh_token' ? 'refresh_token_replay' : 'code_replay';
  return 'token_revocation';
}

const why: Record<string, string> = {
  code_replay: 'an authorization code already used was presented again',
  refresh_token_replay: 'a refresh token already used was presented again',
};

export interface ReplayWatch {
  logger?: Logger;
  metrics?: Metrics;
}

export function endConsentOfRevokedGrant(
  prisma: PrismaClient,
  pairwiseSecret: string,
  { logger, metrics }: ReplayWatch = {},
) {
  return async (grantId: string): Promise<void> => {
    const request = currentRequest();
    const reason = revocationReason(request?.oidc);
    const ended = await endConsentOfGrant(prisma, pairwiseSecret, grantId, reason);
    if (reason === 'token_revocation' || ended.length === 0) return;
    metrics?.consentsEndedAsReplay.inc({ reason }, ended.length);
    for (const { consentId, clientId } of ended) {
      logger?.warn(
        { consent_id: consentId, client_id: clientId, request_id: request?.state.requestId, reason },
        `consent ended: ${why[reason]}`,
      );
    }
  };
}
