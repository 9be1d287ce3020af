// On every call: is everything the token depends on still active? One indexed statement answers
// for the app, its developer account, the client secret, a revoked token id and, for user tokens,
// the consent and its player (with the display name, which /me needs). It goes to the driver
// directly: this runs on every request.
//
// Calls that arrive while the statements in flight are busy share the next one (group commit):
// the statement takes arrays and answers one row per call. Every call is still answered by a
// statement that starts after the call arrived, so a revocation committed before a call is seen
// by that call; only the number of round trips to PostgreSQL goes down under load.
import type { Query } from '@devplat/db';
import { ProblemError } from '@devplat/http';
import { type AccessToken, invalidToken } from './bearer.ts';

interface LivenessRow {
  i: string;
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
  SELECT t.i,
    EXISTS (SELECT 1 FROM apps a JOIN accounts acc ON acc.id = a.account_id
             WHERE a.client_id = t.client_id AND a.status = 'active' AND a.environment = 'sandbox'
               AND acc.status = 'active' AND acc.kind = 'full') AS app_live,
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

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Waiting {
  token: AccessToken;
  resolve(row: LivenessRow | undefined): void;
  reject(error: unknown): void;
}

/** Statements in flight at once (below the pool's size), and calls answered by one statement. */
const maxInFlight = 4;
const maxBatch = 100;

export type LivenessCheck = (token: AccessToken) => Promise<Liveness>;

export function livenessCheck(query: Query): LivenessCheck {
  let waiting: Waiting[] = [];
  let inFlight = 0;

  const run = async (batch: Waiting[]) => {
    try {
      const rows = await query<LivenessRow>(statement, [
        batch.map((w) => w.token.clientId),
        batch.map((w) => w.token.secretId),
        batch.map((w) => w.token.jti),
        batch.map((w) => w.token.consentId ?? null),
      ]);
      const byIndex = new Map(rows.map((row) => [Number(row.i), row]));
      for (const [index, w] of batch.entries()) w.resolve(byIndex.get(index + 1));
    } catch (error) {
      for (const w of batch) w.reject(error);
    }
  };
  const flush = () => {
    while (inFlight < maxInFlight && waiting.length > 0) {
      const batch = waiting.length > maxBatch ? waiting.splice(0, maxBatch) : waiting;
      if (batch === waiting) waiting = [];
      inFlight += 1;
      void run(batch).finally(() => {
        inFlight -= 1;
        flush();
      });
    }
  };
  const row = (token: AccessToken) =>
    new Promise<LivenessRow | undefined>((resolve, reject) => {
      waiting.push({ token, resolve, reject });
      flush();
    });

  return async (token) => {
    // Ids the statement casts are checked here: one malformed value must not fail a shared statement.
    const consentId = token.consentId ?? null;
    if (!uuid.test(token.secretId) || (consentId !== null && !uuid.test(consentId))) {
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
