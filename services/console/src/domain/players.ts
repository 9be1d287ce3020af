// Synthetic sandbox players a developer creates to sign in on the player client. They are never
// real players: no balance, no location, only a username, a password and an optional name. The
// rules are the players room's; this door reads the request and gives the views.
import type { PlayerView } from '@devplat/contract';
import type { PlayerStatus, PrismaClient, SandboxPlayer } from '@devplat/db';
import type { Actor } from '@devplat/domain/audit';
import { createPlayerOfDeveloper, playersOfAccount, setPlayerStatusOfDeveloper } from '@devplat/domain/players';
import type { SignInThrottle } from '@devplat/throttle';
import { type JsonBody, optionalText, pageQuery, password, username } from './rules.ts';

export type { PlayerView };

/** A page of the developer's sandbox players, oldest first. */
export interface PlayerPage {
  players: SandboxPlayer[];
  /** Gives the next, newer page; null on the last one. */
  nextCursor: string | null;
}

export const playerView = (player: SandboxPlayer): PlayerView => ({
  id: player.id,
  username: player.username,
  display_name: player.displayName,
  status: player.status,
  created_at: player.createdAt.toISOString(),
});

/** The console's door to a developer's sandbox players (@devplat/domain/players). */
export function sandboxPlayers(prisma: PrismaClient, throttle: SignInThrottle) {
  return {
    /**
     * A page of the account's players, oldest first (by created_at, then id): `query` is the
     * request's (limit: 1 to 200, 50 by default; cursor: the next_cursor of the page before). Any
     * other parameter, one given twice, a bad limit or a cursor this listing did not give is refused.
     */
    async list(accountId: string, query: Readonly<Record<string, unknown>> = {}): Promise<PlayerPage> {
      const { items, nextCursor } = await playersOfAccount(prisma, accountId, pageQuery(query));
      return { players: items, nextCursor };
    },

    setStatus: (actor: Actor, playerId: string, status: PlayerStatus): Promise<SandboxPlayer> =>
      setPlayerStatusOfDeveloper(prisma, actor, playerId, status),

    create(actor: Actor, body: JsonBody, address: string): Promise<SandboxPlayer> {
      const player = {
        username: username(body.username),
        password: password(body.password, 8),
        displayName: optionalText(body.display_name, 'display_name', 64),
      };
      return createPlayerOfDeveloper(prisma, throttle, actor, player, address);
    },
  };
}
