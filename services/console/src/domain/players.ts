// Synthetic sandbox players a developer creates to sign in on the player client. They are never
// real players: no balance, no location, only a username, a password and an optional name.
import type { PlayerView } from '@devplat/contract';
import { type Actor, audit, isUuid, type PlayerStatus, type PrismaClient, type SandboxPlayer } from '@devplat/db';
import { hashPassword } from '@devplat/passwords';
import type { SignInThrottle } from '@devplat/throttle';
import { forgiven, refuse, throttled } from './refusals.ts';
import { knownFields, optionalText, password, username } from './rules.ts';

export type { PlayerView };

export const playerView = (player: SandboxPlayer): PlayerView => ({
  id: player.id,
  username: player.username,
  display_name: player.displayName,
  status: player.status,
  created_at: player.createdAt.toISOString(),
});

/**
 * Usernames are unique across the sandbox (players sign in by username alone), so a taken one is
 * named; each taken username counts on the developer's throttle like a wrong password, so creating
 * players is no faster a way to learn usernames than guessing at sign-in.
 */
export function sandboxPlayers(prisma: PrismaClient, throttle: SignInThrottle) {
  return {
    list: (accountId: string) => prisma.sandboxPlayer.findMany({ where: { accountId }, orderBy: { createdAt: 'asc' } }),

    /**
     * Disables a player (every user token of theirs answers 403 ACCESS_DENIED on the next call, their
     * consents stand, they cannot sign in) or enables them again. Nothing caches a player's status
     * (see services/admin/src/players.ts), so no invalidation is needed. Audited when it changed.
     */
    async setStatus(actor: Actor, playerId: string, status: PlayerStatus): Promise<SandboxPlayer> {
      const player = isUuid(playerId)
        ? await prisma.sandboxPlayer.findFirst({ where: { id: playerId, accountId: actor.accountId } })
        : null;
      if (!player) refuse('NOT_FOUND', `The sandbox player ${playerId} does not exist or is not yours.`);
      return prisma.$transaction(async (tx) => {
        const { count } = await tx.sandboxPlayer.updateMany({
          where: { id: player.id, status: { not: status } },
          data: { status },
        });
        if (count > 0) {
          const action = status === 'disabled' ? 'player.disable' : 'player.enable';
          await audit(tx, actor, action, { type: 'sandbox_player', id: player.id }, { username: player.username });
        }
        return tx.sandboxPlayer.findUniqueOrThrow({ where: { id: player.id } });
      });
    },

    async create(actor: Actor, input: unknown, address: string): Promise<SandboxPlayer> {
      const body = knownFields(input, ['username', 'password', 'display_name']);
      const name = username(body.username);
      const secret = password(body.password, 8);
      const displayName = optionalText(body.display_name, 'display_name', 64);
      const attempt = { account: actor.accountId, address };
      await throttled(throttle, attempt);
      const passwordHash = await hashPassword(secret);
      try {
        const created = await prisma.$transaction(async (tx) => {
          const player = await tx.sandboxPlayer.create({
            data: { accountId: actor.accountId, username: name, passwordHash, displayName },
          });
          await audit(tx, actor, 'player.create', { type: 'sandbox_player', id: player.id });
          return player;
        });
        await forgiven(throttle, attempt);
        return created;
      } catch (error) {
        if ((error as { code?: string })?.code === 'P2002') {
          refuse('USERNAME_TAKEN', `The username ${name} is taken. Choose another.`);
        }
        throw error;
      }
    },
  };
}
