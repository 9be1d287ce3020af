// The sandbox_players table: every statement on sandbox players is here, and only these write them.
// The api's per-call liveness statement (services/api/src/liveness.ts) reads a player's status too,
// on purpose: it is one statement across areas on the hot path.
import type { PlayerStatus, Prisma, SandboxPlayer } from '@devplat/db';
import type { Db } from '../db.ts';

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

export const findPlayerByUsername = (db: Db, username: string): Promise<SandboxPlayer | null> =>
  db.sandboxPlayer.findUnique({ where: { username } });

/** The player, if it is one of the account's (`playerId` must be a uuid). */
export const findPlayerOfAccount = (db: Db, accountId: string, playerId: string): Promise<SandboxPlayer | null> =>
  db.sandboxPlayer.findFirst({ where: { id: playerId, accountId } });

/** The player with this username, if it belongs to the account with this e-mail. */
export const findPlayerOfAccountEmail = (db: Db, email: string, username: string): Promise<SandboxPlayer | null> =>
  db.sandboxPlayer.findFirst({ where: { username, account: { email } } });

export const playersOfAccount = (db: Db, accountId: string): Promise<SandboxPlayer[]> =>
  db.sandboxPlayer.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } });

export const playerById = (tx: Prisma.TransactionClient, playerId: string): Promise<SandboxPlayer> =>
  tx.sandboxPlayer.findUniqueOrThrow({ where: { id: playerId } });
