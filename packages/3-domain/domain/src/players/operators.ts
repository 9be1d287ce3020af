// Sandbox players as an operator names them, by username or by id: the admin command and the
// admin API find them here, and are refused alike (PLAYER_NOT_FOUND) when no player has that name.
import { isUuid, type SandboxPlayer } from '@devplat/db';
import type { Db } from '../db.ts';
import { refuse } from '../refusal.ts';
import { findPlayer, findPlayerByUsername } from './store.ts';

/** The player with this username (in any case). */
export async function playerWithUsername(db: Db, username: string): Promise<SandboxPlayer> {
  const player = await findPlayerByUsername(db, username.toLowerCase());
  return player ?? refuse('PLAYER_NOT_FOUND', `no sandbox player has the username ${username}`);
}

/** The player a username (in any case) or an id (a uuid) names; usernames are unique across the sandbox. */
export async function playerNamed(db: Db, named: string): Promise<SandboxPlayer> {
  if (!isUuid(named)) return playerWithUsername(db, named);
  return (
    (await findPlayer(db, named.toLowerCase())) ?? refuse('PLAYER_NOT_FOUND', `no sandbox player has the id ${named}`)
  );
}
