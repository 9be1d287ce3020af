// A developer's own sandbox players, as the console serves them: synthetic players a developer
// creates to sign in on the player client (never real players: no balance, no location, only a
// username, a password and an optional name), made behind the sign-in throttle from the
// developer's input checked by the player's rules (rules.ts), and disabled or enabled only by the
// account they belong to (another developer's player answers exactly like one that does not exist).
import { isUuid, type PlayerStatus, type PrismaClient, type SandboxPlayer } from '@devplat/db';
import type { SignInThrottle } from '@devplat/throttle';
import type { Actor } from '../audit/store.ts';
import type { Db } from '../db.ts';
import { type JsonBody, pageQuery } from '../input.ts';
import { refuse } from '../refusal.ts';
import { forgiven, throttled } from '../throttled.ts';
import { createPlayer, disablePlayer, enablePlayer } from './operations.ts';
import { checkedPlayer, type PlayerMembers } from './rules.ts';
import { findPlayerByUsername, findPlayerOfAccount, playersOfAccount } from './store.ts';

/**
 * A new player of the developer's account. Usernames are unique across the sandbox (players sign in
 * by username alone), so a taken one is named (USERNAME_TAKEN); each taken username counts on the
 * developer's throttle like a wrong password, so creating players is no faster a way to learn
 * usernames than guessing at sign-in.
 */
export async function createPlayerOfDeveloper(
  prisma: PrismaClient,
  throttle: SignInThrottle,
  actor: Actor,
  player: PlayerMembers,
  address: string,
): Promise<SandboxPlayer> {
  // Checked before the throttle too (createPlayer checks it again): input the rules refuse never
  // counts as an attempt.
  const checked = checkedPlayer(player);
  const attempt = { account: actor.accountId, address };
  await throttled(throttle, attempt);
  const created = await createPlayer(prisma, actor, { accountId: actor.accountId, ...checked });
  await forgiven(throttle, attempt);
  return created;
}

/**
 * Disables one of the developer's players (every user token of theirs answers 403 ACCESS_DENIED on
 * the next call, their consents stand, they cannot sign in) or enables them again. Audited when it
 * changed; PLAYER_NOT_FOUND for a player that is not the account's.
 */
export async function setPlayerStatusOfDeveloper(
  prisma: PrismaClient,
  actor: Actor,
  playerId: string,
  status: PlayerStatus,
): Promise<SandboxPlayer> {
  const player = isUuid(playerId) ? await findPlayerOfAccount(prisma, actor.accountId, playerId) : null;
  if (!player) refuse('PLAYER_NOT_FOUND', `The sandbox player ${playerId} does not exist or is not yours.`);
  const change = status === 'disabled' ? disablePlayer : enablePlayer;
  return (await change(prisma, actor, player)).player;
}

/**
 * One of the developer's players, named by id or by username (in any case); PLAYER_NOT_FOUND, as
 * for one that does not exist, for another account's.
 */
export async function playerOfDeveloper(db: Db, accountId: string, idOrUsername: string): Promise<SandboxPlayer> {
  const player = isUuid(idOrUsername)
    ? await findPlayerOfAccount(db, accountId, idOrUsername)
    : await findPlayerByUsername(db, idOrUsername.toLowerCase());
  if (!player || player.accountId !== accountId) {
    refuse('PLAYER_NOT_FOUND', `The sandbox player ${idOrUsername} does not exist or is not yours.`);
  }
  return player;
}

/** A page of the developer's sandbox players, oldest first. */
export interface PlayerPage {
  players: SandboxPlayer[];
  /** Gives the next, newer page; null on the last one. */
  nextCursor: string | null;
}

/** The console's operations on a developer's sandbox players, over these stores: they read the requests. */
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
      // The JSON read here; the player's rules (rules.ts) check every member.
      const player = {
        username: body.username as string,
        password: body.password as string,
        displayName: body.display_name as string | null,
      };
      return createPlayerOfDeveloper(prisma, throttle, actor, player, address);
    },
  };
}
