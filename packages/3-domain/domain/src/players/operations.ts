// What can be done to a sandbox player, each change audited in its own transaction; one is created
// under the player's rules (rules.ts), its password hashed here (@devplat/passwords). Nothing caches
// a player's status: the api's liveness statement and the player client's session check read it on
// every request, so a change takes effect on the very next call with no invalidation.
import type { PlayerStatus, Prisma, PrismaClient, SandboxPlayer } from '@devplat/db';
import { hashPassword } from '@devplat/passwords';
import { type Actor, type Operator, recordAudit } from '../audit/store.ts';
import { Refusal } from '../refusal.ts';
import { checkedPlayer, type PlayerMembers } from './rules.ts';
import { changeStatus, insertPlayer, isUsernameTaken, playerById } from './store.ts';

export interface NewPlayer extends PlayerMembers {
  accountId: string;
}

/**
 * A new player of the developer's account, under the player's rules; usernames are unique across
 * the sandbox (USERNAME_TAKEN).
 */
export async function createPlayer(prisma: PrismaClient, by: Actor, player: NewPlayer): Promise<SandboxPlayer> {
  const { password, ...row } = checkedPlayer(player);
  const passwordHash = await hashPassword(password);
  try {
    return await prisma.$transaction(async (tx) => {
      const inserted = await insertPlayer(tx, { ...row, passwordHash });
      await recordAudit(tx, by, 'player.create', { type: 'sandbox_player', id: inserted.id });
      return inserted;
    });
  } catch (error) {
    if (!isUsernameTaken(error)) throw error;
    throw new Refusal('USERNAME_TAKEN', `The username ${row.username} is taken. Choose another.`, { cause: error });
  }
}

export interface PlayerStatusChange {
  player: SandboxPlayer;
  /** False when the player already had the status: nothing was changed or recorded. */
  changed: boolean;
}

/** Who the change is for, and what else its audit record says beside the username. */
type StatusChange = (
  prisma: PrismaClient,
  by: Actor | Operator,
  player: Pick<SandboxPlayer, 'id' | 'username'>,
  details?: Prisma.InputJsonObject,
) => Promise<PlayerStatusChange>;

const toStatus =
  (status: PlayerStatus, action: string): StatusChange =>
  (prisma, by, { id, username }, details = {}) =>
    prisma.$transaction(async (tx) => {
      const changed = await changeStatus(tx, id, status);
      if (changed) await recordAudit(tx, by, action, { type: 'sandbox_player', id }, { username, ...details });
      return { player: await playerById(tx, id), changed };
    });

/** Every user token of the player answers 403 ACCESS_DENIED on its next call; their consents stand. */
export const disablePlayer = toStatus('disabled', 'player.disable');

/** Their tokens under consents that still stand work again, and they can sign in. */
export const enablePlayer = toStatus('active', 'player.enable');
