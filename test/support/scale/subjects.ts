// The rows a seeded platform's reads are tried on: the biggest of each kind (the worst page an
// operator or a developer can ask for) and a typical one.
import type { Query } from '@devplat/db';

export interface Account {
  id: string;
  email: string;
}

export interface Subjects {
  /** The account with the most apps, and the one with the most players (the console lists them all). */
  mostApps: Account & { apps: number };
  mostPlayers: Account & { players: number };
  /** An account with a few apps and a few dozen players: the median developer. */
  typical: Account & { apps: number; players: number };
  /** The active app with the most consents, one of its active secrets, and its developer's e-mail. */
  popularApp: { id: string; clientId: string; consents: number; secretId: string; ownerEmail: string };
  /** The app with the longest history (audit records), and its developer. */
  historicApp: { id: string; clientId: string; accountId: string; ownerEmail: string; records: number };
  /** The player with the most consents. */
  busyPlayer: { id: string; username: string; consents: number };
  /** An active consent of an active app and player: what a user token names. */
  consent: { id: string; grantId: string; playerId: string; clientId: string; secretId: string };
  /** A revoked access token's id (null when none was seeded). */
  revokedJti: string | null;
}

async function one<Row>(query: Query, text: string): Promise<Row> {
  const [row] = await query<Row>(text, []);
  if (!row) throw new Error(`the seeded database has no row for: ${text.trim().split('\n')[0]}`);
  return row;
}

export async function pickSubjects(query: Query): Promise<Subjects> {
  // Active accounts: the console signs them in.
  const mostApps = await one<Account & { apps: number }>(
    query,
    `SELECT acc.id::text AS id, acc.email, count(*)::int AS apps FROM apps a JOIN accounts acc ON acc.id = a.account_id
     WHERE acc.status = 'active' GROUP BY acc.id ORDER BY count(*) DESC, acc.id LIMIT 1`,
  );
  const mostPlayers = await one<Account & { players: number }>(
    query,
    `SELECT acc.id::text AS id, acc.email, count(*)::int AS players FROM sandbox_players p
       JOIN accounts acc ON acc.id = p.account_id
     WHERE acc.status = 'active' GROUP BY acc.id ORDER BY count(*) DESC, acc.id LIMIT 1`,
  );
  const typical = await one<Account & { apps: number; players: number }>(
    query,
    `WITH per AS (
       SELECT acc.id, acc.email, (SELECT count(*) FROM apps a WHERE a.account_id = acc.id)::int AS apps,
         (SELECT count(*) FROM sandbox_players p WHERE p.account_id = acc.id)::int AS players
       FROM accounts acc WHERE acc.kind = 'full' AND acc.status = 'active')
     SELECT id::text AS id, email, apps, players FROM per WHERE apps > 0 AND players > 0
     ORDER BY players, id OFFSET (SELECT count(*) / 2 FROM per WHERE apps > 0 AND players > 0) LIMIT 1`,
  );
  const popularApp = await one<Subjects['popularApp']>(
    query,
    `SELECT a.id::text AS id, a.client_id AS "clientId", n.consents, acc.email AS "ownerEmail",
       (SELECT s.id::text FROM client_secrets s WHERE s.app_id = a.id AND s.status = 'active' LIMIT 1) AS "secretId"
     FROM (SELECT app_id, count(*)::int AS consents FROM consents GROUP BY app_id) n JOIN apps a ON a.id = n.app_id
       JOIN accounts acc ON acc.id = a.account_id
     WHERE a.status = 'active' AND acc.status = 'active' ORDER BY n.consents DESC, a.id LIMIT 1`,
  );
  const historicApp = await one<Subjects['historicApp']>(
    query,
    `SELECT a.id::text AS id, a.client_id AS "clientId", a.account_id::text AS "accountId", acc.email AS "ownerEmail",
       n.records
     FROM (SELECT app_id, count(*)::int AS records FROM audit_records WHERE app_id IS NOT NULL GROUP BY app_id) n
       JOIN apps a ON a.id = n.app_id JOIN accounts acc ON acc.id = a.account_id
     WHERE a.status <> 'deleted' AND acc.status = 'active' ORDER BY n.records DESC, a.id LIMIT 1`,
  );
  const busyPlayer = await one<{ id: string; username: string; consents: number }>(
    query,
    `SELECT p.id::text AS id, p.username, n.consents
     FROM (SELECT player_id, count(*)::int AS consents FROM consents GROUP BY player_id) n
       JOIN sandbox_players p ON p.id = n.player_id
     ORDER BY n.consents DESC, p.id LIMIT 1`,
  );
  const consent = await one<Subjects['consent']>(
    query,
    `SELECT c.id::text AS id, c.grant_id AS "grantId", c.player_id::text AS "playerId", a.client_id AS "clientId",
       s.id::text AS "secretId"
     FROM consents c JOIN apps a ON a.id = c.app_id JOIN client_secrets s ON s.app_id = a.id AND s.status = 'active'
       JOIN sandbox_players p ON p.id = c.player_id
     WHERE c.status = 'active' AND a.status = 'active' AND p.status = 'active' ORDER BY c.id LIMIT 1`,
  );
  const [revoked] = await query<{ jti: string }>('SELECT jti FROM revoked_tokens ORDER BY jti LIMIT 1', []);
  return {
    mostApps,
    mostPlayers,
    typical,
    popularApp,
    historicApp,
    busyPlayer,
    consent,
    revokedJti: revoked?.jti ?? null,
  };
}
