// The sandbox_players table: every statement on sandbox players is here, and only these write them.
// The api's per-call liveness statement (services/api/src/liveness.ts) reads a player's status too,
// on purpose: it is one statement across areas on the hot path.
import { isUuid, type PlayerStatus, Prisma, type Query, type SandboxPlayer, storableText } from '@devplat/db';
import type { Db } from '../db.ts';
import { beyond, likeLiteral, orderOf, type Page, type Position, page } from '../paging.ts';

export type NewPlayerRow = Pick<SandboxPlayer, 'accountId' | 'username' | 'passwordHash' | 'displayName'>;

export const insertPlayer = (tx: Prisma.TransactionClient, data: NewPlayerRow): Promise<SandboxPlayer> =>
  tx.sandboxPlayer.create({ data });

/** Whether a failed insert failed on the unique username. */
export const isUsernameTaken = (error: unknown): boolean => (error as { code?: string })?.code === 'P2002';

/** False when the player already had the status. */
export async function changeStatus(tx: Prisma.TransactionClient, playerId: string, status: PlayerStatus) {
  const { count } = await tx.sandboxPlayer.updateMany({
    where: { id: playerId, status: { not: status } },
    data: { status },
  });
  return count > 0;
}

export const findPlayer = (db: Db, playerId: string): Promise<SandboxPlayer | null> =>
  db.sandboxPlayer.findUnique({ where: { id: playerId } });

/** What the player client shows of a signed-in player. */
export type ActivePlayer = Pick<SandboxPlayer, 'id' | 'username' | 'displayName'>;

const activePlayersStatement = `
  SELECT t.i, p.id::text AS id, p.username, p.display_name
  FROM unnest($1::uuid[]) WITH ORDINALITY AS t(player_id, i)
  JOIN sandbox_players p ON p.id = t.player_id AND p.status = 'active'`;

/**
 * Each player while active, else null, in order: one statement for many, through the driver, for
 * the player client's check on every page (an id that is no uuid is no player, and is not sent).
 */
export async function activePlayers(query: Query, playerIds: string[]): Promise<(ActivePlayer | null)[]> {
  const ids = playerIds.map((id) => (isUuid(id) ? id : null));
  const rows = await query<{ i: string; id: string; username: string; display_name: string | null }>(
    activePlayersStatement,
    [ids],
  );
  const byIndex = new Map(rows.map((row) => [Number(row.i), row]));
  return playerIds.map((_, index) => {
    const row = byIndex.get(index + 1);
    return row ? { id: row.id, username: row.username, displayName: row.display_name } : null;
  });
}

/** None for text no row can hold (@devplat/db's storableText), which never reaches the query. */
export const findPlayerByUsername = async (db: Db, username: string): Promise<SandboxPlayer | null> =>
  storableText(username) ? db.sandboxPlayer.findUnique({ where: { username } }) : null;

/** The player, if it is one of the account's (`playerId` must be a uuid). */
export const findPlayerOfAccount = (db: Db, accountId: string, playerId: string): Promise<SandboxPlayer | null> =>
  db.sandboxPlayer.findFirst({ where: { id: playerId, accountId } });

/** The player with this username, if it belongs to the account with this e-mail (none for text no row can hold). */
export const findPlayerOfAccountEmail = async (
  db: Db,
  email: string,
  username: string,
): Promise<SandboxPlayer | null> =>
  storableText(email) && storableText(username)
    ? db.sandboxPlayer.findFirst({ where: { username, account: { email } } })
    : null;

/**
 * One page of the account's players, oldest first (by created_at, then id): the console's list, on
 * the index of (account_id, created_at, id). `query`: limit, 1 to 200 (50 by default), and cursor,
 * the nextCursor of the page before; a cursor another listing gave is refused.
 */
export const playersOfAccount = (
  db: Db,
  accountId: string,
  query: { limit?: number; cursor?: string } = {},
): Promise<Page<SandboxPlayer>> =>
  page('sandbox-players', query, (after, take) =>
    db.sandboxPlayer.findMany({
      where: { AND: [{ accountId }, ...(after ? [beyond(after, 'oldest')] : [])] },
      orderBy: orderOf('oldest'),
      take,
    }),
  );

export const playerById = (tx: Prisma.TransactionClient, playerId: string): Promise<SandboxPlayer> =>
  tx.sandboxPlayer.findUniqueOrThrow({ where: { id: playerId } });

/** Which players a search reads; every member given must hold. */
export interface PlayerSelection {
  /** The whole username, as stored (lower case), or its beginning in any case. */
  username?: { is: string } | { startsWith: string };
  accountId?: string;
  status?: PlayerStatus;
}

/** Up to `take` selected players after a position (null: from the newest), newest first. */
export async function playersNewestFirst(
  db: Db,
  selection: PlayerSelection,
  after: Position | null,
  take: number,
): Promise<SandboxPlayer[]> {
  const { username, accountId, status } = selection;
  if (username && 'startsWith' in username) {
    const ids = await idsByUsernamePrefix(db, { ...selection, prefix: username.startsWith }, after, take);
    return ids.length ? db.sandboxPlayer.findMany({ where: { id: { in: ids } }, orderBy: orderOf('newest') }) : [];
  }
  return db.sandboxPlayer.findMany({
    where: {
      AND: [
        { ...(username && { username: username.is }), ...(accountId && { accountId }), ...(status && { status }) },
        ...(after ? [beyond(after, 'newest')] : []),
      ],
    },
    orderBy: orderOf('newest'),
    take,
  });
}

// A prefix is found on the index of lower(username) with text_pattern_ops, which reads a LIKE
// prefix as a range whatever the database's collation. Prisma's schema cannot describe that index
// (an operator class on a B-tree: prisma/orm#17518), and an index on an expression is one its diff
// leaves alone, so the migration keeps it and this statement, which Prisma cannot write, uses it.
const idsByUsernamePrefix = async (
  db: Db,
  { prefix, accountId, status }: { prefix: string; accountId?: string; status?: PlayerStatus },
  after: Position | null,
  take: number,
): Promise<string[]> => {
  const conditions = [
    Prisma.sql`lower(username) LIKE ${`${likeLiteral(prefix.toLowerCase())}%`}`,
    ...(accountId ? [Prisma.sql`account_id = ${accountId}::uuid`] : []),
    ...(status ? [Prisma.sql`status = ${status}::"PlayerStatus"`] : []),
    ...(after ? [Prisma.sql`(created_at, id) < (${after.createdAt}::timestamptz, ${after.id}::uuid)`] : []),
  ];
  const rows = await db.$queryRaw<{ id: string }[]>`
    SELECT id FROM sandbox_players WHERE ${Prisma.join(conditions, ' AND ')}
    ORDER BY created_at DESC, id DESC LIMIT ${take}`;
  return rows.map((row) => row.id);
};

/** How many players the account has in each status (a status none has: 0). */
export async function playerCountsOfAccount(db: Db, accountId: string): Promise<Record<PlayerStatus, number>> {
  const groups = await db.sandboxPlayer.groupBy({ by: ['status'], where: { accountId }, _count: { _all: true } });
  const counts: Record<PlayerStatus, number> = { active: 0, disabled: 0 };
  for (const group of groups) counts[group.status] = group._count._all;
  return counts;
}
