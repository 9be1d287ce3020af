// On every call: is everything the token depends on still active, and what is the player's display
// name? One indexed statement answers both: liveness for the app, its developer account, the client
// secret, a revoked token id and, for user tokens, the consent and its player; and the player's
// profile (the display name, which /me answers), read in the same round trip. It goes to the
// driver directly: this runs on every request.
//
// Concurrent calls share statements (groupCommit): the statement takes arrays and answers one
// row per token, and calls with the same token (the verifier hands out one object per token)
// share its row. A revocation committed before a call is still seen by that call. A statement
// PostgreSQL does not answer within the query's bound (DATABASE_TIMEOUT_MS) fails its calls as a
// dependency failure and holds back none of the calls after it.
import { usableAppCondition } from '@devplat/app-directory';
import { groupCommit, isUuid, type Query, statementRoundTrips } from '@devplat/db';
import { ProblemError } from '@devplat/http';
import { type Metrics, observedBatch } from '@devplat/metrics';
import { type AccessToken, invalidToken } from './bearer.ts';

interface LivenessAndProfileRow {
  i: string;
  app_live: boolean;
  secret_live: boolean;
  token_live: boolean;
  consent_live: boolean | null;
  player_live: boolean | null;
  display_name: string | null;
}

/** What the statement reads besides liveness: null for an app token or a player who chose no name. */
export interface TokenProfile {
  displayName: string | null;
}

const livenessAndProfileStatement = `
  SELECT t.i,
    EXISTS (SELECT 1 FROM apps a JOIN accounts acc ON acc.id = a.account_id
             WHERE a.client_id = t.client_id AND ${usableAppCondition}) AS app_live,
    EXISTS (SELECT 1 FROM client_secrets s JOIN apps a ON a.id = s.app_id
             WHERE s.id = t.secret_id AND a.client_id = t.client_id AND s.status = 'active') AS secret_live,
    NOT EXISTS (SELECT 1 FROM revoked_tokens r WHERE r.jti = t.jti) AS token_live,
    (SELECT c.status = 'active' FROM consents c JOIN apps a ON a.id = c.app_id
      WHERE c.id = t.consent_id AND a.client_id = t.client_id) AS consent_live,
    (SELECT p.status = 'active' FROM consents c JOIN sandbox_players p ON p.id = c.player_id
      WHERE c.id = t.consent_id) AS player_live,
    (SELECT p.display_name FROM consents c JOIN sandbox_players p ON p.id = c.player_id
      WHERE c.id = t.consent_id) AS display_name
  FROM unnest($1::text[], $2::uuid[], $3::text[], $4::uuid[]) WITH ORDINALITY
    AS t(client_id, secret_id, jti, consent_id, i)`;

/** Tokens checked by one statement. */
const maxBatch = 100;

export type LivenessAndProfileCheck = (token: AccessToken) => Promise<TokenProfile>;

export function livenessAndProfileCheck(query: Query, metrics?: Metrics): LivenessAndProfileCheck {
  const row = groupCommit(
    observedBatch(metrics, 'liveness', async (tokens: AccessToken[]) => {
      const rows = await query<LivenessAndProfileRow>(livenessAndProfileStatement, [
        tokens.map((token) => token.clientId),
        tokens.map((token) => token.secretId),
        tokens.map((token) => token.jti),
        tokens.map((token) => token.consentId ?? null),
      ]);
      const byIndex = new Map(rows.map((row) => [Number(row.i), row]));
      return tokens.map((_, index) => byIndex.get(index + 1));
    }),
    statementRoundTrips(query, maxBatch),
  );

  return async (token) => {
    // Ids the statement casts are checked here: one malformed value must not fail a shared statement.
    const consentId = token.consentId ?? null;
    if (!isUuid(token.secretId) || (consentId !== null && !isUuid(consentId))) {
      throw invalidToken('the token names credentials that do not exist');
    }
    const live = await row(token);
    if (!live?.app_live) throw invalidToken('the app or its developer account is no longer active');
    if (!live.secret_live) throw invalidToken('the client secret it was obtained with has been revoked');
    if (!live.token_live) throw invalidToken('the token has been revoked');
    if (consentId !== null && live.consent_live !== true) {
      throw new ProblemError(
        'CONSENT_REVOKED',
        'The player withdrew, or the app ended, the consent behind this token.',
      );
    }
    if (consentId !== null && live.player_live !== true) {
      throw new ProblemError('ACCESS_DENIED', 'The player behind this token may not be reached.');
    }
    return { displayName: live.display_name };
  };
}
