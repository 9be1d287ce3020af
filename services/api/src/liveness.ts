// On every call: is everything the token depends on still active? One indexed statement answers
// for the app, its developer account, the client secret, a revoked token id and, for user tokens,
// the consent and its player (with the display name, which /me needs). It goes to the driver directly:
// this runs on every request.
import type { Query } from '@devplat/db';
import { ProblemError } from '@devplat/http';
import { type AccessToken, invalidToken } from './bearer.ts';

interface LivenessRow {
  app_live: boolean;
  secret_live: boolean;
  token_live: boolean;
  consent_live: boolean | null;
  player_live: boolean | null;
  display_name: string | null;
}

export interface Liveness {
  displayName: string | null;
}

const statement = `
  SELECT
    EXISTS (SELECT 1 FROM apps a JOIN accounts acc ON acc.id = a.account_id
             WHERE a.client_id = $1 AND a.status = 'active' AND a.environment = 'sandbox'
               AND acc.status = 'active' AND acc.kind = 'full') AS app_live,
    EXISTS (SELECT 1 FROM client_secrets s JOIN apps a ON a.id = s.app_id
             WHERE s.id = $2::uuid AND a.client_id = $1 AND s.status = 'active') AS secret_live,
    NOT EXISTS (SELECT 1 FROM revoked_tokens r WHERE r.jti = $3) AS token_live,
    (SELECT c.status = 'active' FROM consents c JOIN apps a ON a.id = c.app_id
      WHERE c.id = $4::uuid AND a.client_id = $1) AS consent_live,
    (SELECT p.status = 'active' FROM consents c JOIN sandbox_players p ON p.id = c.player_id
      WHERE c.id = $4::uuid) AS player_live,
    (SELECT p.display_name FROM consents c JOIN sandbox_players p ON p.id = c.player_id
      WHERE c.id = $4::uuid) AS display_name`;

export async function checkLiveness(query: Query, token: AccessToken): Promise<Liveness> {
  const consentId = token.consentId ?? null;
  const [row] = await query<LivenessRow>(statement, [token.clientId, token.secretId, token.jti, consentId]);
  if (!row?.app_live) throw invalidToken('the app or its developer account is no longer active');
  if (!row.secret_live) throw invalidToken('the client secret it was obtained with has been revoked');
  if (!row.token_live) throw invalidToken('the token has been revoked');
  if (consentId !== null && row.consent_live !== true) {
    throw new ProblemError('CONSENT_REVOKED', 'The player withdrew, or the app ended, the consent behind this token.');
  }
  if (consentId !== null && row.player_live !== true) {
    throw new ProblemError('ACCESS_DENIED', 'The player behind this token may not be reached.');
  }
  return { displayName: row.display_name };
}
