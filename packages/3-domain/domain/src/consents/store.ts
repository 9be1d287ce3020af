// The consents table: every statement on consent receipts is here, and only these write them. The
// api's per-call liveness statement (services/api/src/liveness.ts) reads them too, on purpose: it
// is one statement across areas on the hot path. Each consent event is written with its change.
import { type Consent, type Prisma, type Query, type RevocationReason, storableText } from '@devplat/db';
import type { Db } from '../db.ts';

/** Which consents an operation means: one, the one behind a grant, an app's, or a player's (with one app, or all). */
export type ConsentSelection =
  | { consentId: string }
  | { grantId: string }
  /** `scopes`: only those holding any of them. */
  | { appId: string; scopes?: readonly string[] }
  /** `clientId`: only those with that app. */
  | { playerId: string; clientId?: string };

function whereOf(selection: ConsentSelection): Prisma.ConsentWhereInput {
  if ('consentId' in selection) return { id: selection.consentId };
  if ('grantId' in selection) return { grantId: selection.grantId };
  if ('playerId' in selection) {
    const { playerId, clientId } = selection;
    return { playerId, ...(clientId !== undefined && { app: { clientId } }) };
  }
  return { appId: selection.appId, ...(selection.scopes && { scopes: { hasSome: [...selection.scopes] } }) };
}

export type NewConsent = Pick<Consent, 'appId' | 'playerId' | 'grantId' | 'scopes' | 'consentTextVersion'>;

export const insertConsent = (tx: Prisma.TransactionClient, data: NewConsent): Promise<Consent> =>
  tx.consent.create({ data });

/** The active consents selected, oldest first (at most `limit`), each with its app's client id. */
export const activeConsents = (tx: Prisma.TransactionClient, selection: ConsentSelection, limit?: number) =>
  tx.consent.findMany({
    where: { ...whereOf(selection), status: 'active' },
    include: { app: { select: { clientId: true } } },
    orderBy: [{ grantedAt: 'asc' }, { id: 'asc' }],
    ...(limit !== undefined && { take: limit }),
  });

/** Ends those of the consents still active, in one statement; resolves with the ids it ended. */
export async function markEnded(
  tx: Prisma.TransactionClient,
  consentIds: string[],
  revokedAt: Date,
  reason: RevocationReason,
): Promise<Set<string>> {
  const ended = await tx.consent.updateManyAndReturn({
    where: { id: { in: consentIds }, status: 'active' },
    data: { status: 'revoked', revokedAt, revocationReason: reason },
    select: { id: true },
  });
  return new Set(ended.map(({ id }) => id));
}

/** A consent by its id (`consentId` must be a uuid), with its app's client id; null when there is none. */
export const findConsent = (db: Db, consentId: string) =>
  db.consent.findUnique({ where: { id: consentId }, include: { app: { select: { clientId: true } } } });

const activeConsentsOfGrantsStatement = `
  SELECT t.i, c.id::text AS id
  FROM unnest($1::text[]) WITH ORDINALITY AS t(grant_id, i)
  LEFT JOIN consents c ON c.grant_id = t.grant_id AND c.status = 'active'`;

/**
 * The active consent of each grant (null where it has ended), in order: one statement for many,
 * through the driver, for the token endpoint's check on every refresh and user token.
 */
export async function activeConsentIdsOfGrants(query: Query, grantIds: string[]): Promise<(string | null)[]> {
  const rows = await query<{ i: string; id: string | null }>(activeConsentsOfGrantsStatement, [grantIds]);
  const byIndex = new Map(rows.map((row) => [Number(row.i), row.id]));
  return grantIds.map((_, index) => byIndex.get(index + 1) ?? null);
}

/** A player's active consents, oldest first, with what the connected-apps page shows of each app. */
export const activeConsentsOfPlayer = (db: Db, playerId: string) =>
  db.consent.findMany({
    where: { playerId, status: 'active' },
    select: { grantedAt: true, scopes: true, app: { select: { clientId: true, name: true, redirectUris: true } } },
    orderBy: { grantedAt: 'asc' },
  });

/** A player's active consents with one app: their grants, and the app's name (none for a client id no row can hold). */
export const activeConsentsWithApp = async (db: Db, playerId: string, clientId: string) =>
  storableText(clientId)
    ? db.consent.findMany({
        where: { ...whereOf({ playerId, clientId }), status: 'active' },
        select: { id: true, grantId: true, app: { select: { name: true } } },
      })
    : [];

export const activeConsentCount = (db: Db, appId: string): Promise<number> =>
  db.consent.count({ where: { appId, status: 'active' } });

/** Consents of an app granted, and ended, per UTC day (YYYY-MM-DD) since `since`. */
export interface ConsentActivityRow {
  day: string;
  /** granted, withdrawn (by the player) or ended (any other reason). */
  what: string;
  n: number;
}

export async function consentActivity(db: Db, appId: string, since: Date): Promise<ConsentActivityRow[]> {
  const [granted, ended] = await Promise.all([
    db.$queryRaw<ConsentActivityRow[]>`
      SELECT to_char(granted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, 'granted' AS what, count(*)::int AS n
        FROM consents WHERE app_id = ${appId}::uuid AND granted_at >= ${since} GROUP BY 1`,
    db.$queryRaw<ConsentActivityRow[]>`
      SELECT to_char(revoked_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
             CASE WHEN revocation_reason = 'player_withdrawal' THEN 'withdrawn' ELSE 'ended' END AS what,
             count(*)::int AS n
        FROM consents WHERE app_id = ${appId}::uuid AND revoked_at >= ${since} GROUP BY 1, 2`,
  ]);
  return [...granted, ...ended];
}

/** Which consents an operator lists: an app's or a player's, optionally of one status. */
export interface ConsentListing {
  appId?: string;
  playerId?: string;
  status?: Consent['status'];
}

/** Where a consent stands in a listing: granted_at, then id. */
export interface ConsentPosition {
  grantedAt: Date;
  id: string;
}

/** Consents newest granted first, after a position, with their app's client id and player's username. */
export const consentsNewestFirst = (
  db: Db,
  { appId, playerId, status }: ConsentListing,
  after: ConsentPosition | null,
  take: number,
) =>
  db.consent.findMany({
    where: {
      AND: [
        { ...(appId && { appId }), ...(playerId && { playerId }), ...(status && { status }) },
        ...(after
          ? [
              {
                // grantedAt <= t is redundant with the OR, but bounds the index range: page n reads one page.
                grantedAt: { lte: after.grantedAt },
                OR: [{ grantedAt: { lt: after.grantedAt } }, { grantedAt: after.grantedAt, id: { lt: after.id } }],
              },
            ]
          : []),
      ],
    },
    include: { app: { select: { clientId: true } }, player: { select: { username: true } } },
    orderBy: [{ grantedAt: 'desc' }, { id: 'desc' }],
    take,
  });
