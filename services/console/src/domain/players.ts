// Synthetic sandbox players a developer creates to sign in on the player client. They are never
// real players: no balance, no location, only a username, a password and an optional name.
import type { PlayerView } from '@devplat/contract';
import { isUuid, type PlayerStatus, type PrismaClient, type SandboxPlayer } from '@devplat/db';
import type { Actor } from '@devplat/domain/audit';
import {
  createPlayer,
  disablePlayer,
  enablePlayer,
  findPlayerOfAccount,
  playersOfAccount,
} from '@devplat/domain/players';
import { refuse } from '@devplat/domain/refusal';
import type { SignInThrottle } from '@devplat/throttle';
import { knownFields, optionalText, pageQuery, password, username } from './rules.ts';
import { forgiven, throttled } from './throttling.ts';

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

/**
 * Usernames are unique across the sandbox (players sign in by username alone), so a taken one is
 * named; each taken username counts on the developer's throttle like a wrong password, so creating
 * players is no faster a way to learn usernames than guessing at sign-in.
 */
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

    /**
     * Disables a player (every user token of theirs answers 403 ACCESS_DENIED on the next call, their
     * consents stand, they cannot sign in) or enables them again. Audited when it changed.
     */
    async setStatus(actor: Actor, playerId: string, status: PlayerStatus): Promise<SandboxPlayer> {
      const player = isUuid(playerId) ? await findPlayerOfAccount(prisma, actor.accountId, playerId) : null;
      if (!player) refuse('PLAYER_NOT_FOUND', `The sandbox player ${playerId} does not exist or is not yours.`);
      const change = status === 'disabled' ? disablePlayer : enablePlayer;
      return (await change(prisma, actor, player)).player;
    },

    async create(actor: Actor, input: unknown, address: string): Promise<SandboxPlayer> {
      const body = knownFields(input, ['username', 'password', 'display_name']);
      const name = username(body.username);
      const secret = password(body.password, 8);
      const displayName = optionalText(body.display_name, 'display_name', 64);
      const attempt = { account: actor.accountId, address };
      await throttled(throttle, attempt);
      const player = await createPlayer(prisma, actor, {
        accountId: actor.accountId,
        username: name,
        password: secret,
        displayName,
      });
      await forgiven(throttle, attempt);
      return player;
    },
  };
}
