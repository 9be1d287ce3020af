// Finding sandbox players, for the operator: by username (the whole name, or its beginning), the
// e-mail of their developer account, and status, newest first, a page at a time.
import { PlayerStatus, type SandboxPlayer } from '@devplat/db';
import { accountWithEmail } from '../accounts/operators.ts';
import type { Db } from '../db.ts';
import { oneOf, type Page, page, searchText } from '../paging.ts';
import { Refusal } from '../refusal.ts';
import { type PlayerSelection, playersNewestFirst } from './store.ts';

export interface PlayerSearch {
  /** The whole username, in any case. */
  username?: string;
  /** The beginning of the username, in any case. */
  usernamePrefix?: string;
  /** The e-mail address of the developer account the players belong to, in any case. */
  accountEmail?: string;
  /** active or disabled. */
  status?: string;
  /** Players per page: 1 to 200, default 50. */
  limit?: number;
  /** The nextCursor of the page before. */
  cursor?: string;
}

/** One page of the players found, newest first; an account e-mail no account has is refused (ACCOUNT_NOT_FOUND). */
export async function searchPlayers(db: Db, search: PlayerSearch): Promise<Page<SandboxPlayer>> {
  const { username, usernamePrefix, accountEmail, status } = search;
  if (username !== undefined && usernamePrefix !== undefined) {
    throw new Refusal('INVALID_INPUT', 'search by the whole username or by its beginning, not both');
  }
  const selection: PlayerSelection = {};
  // Usernames are kept in lower case, as are the console's e-mail addresses.
  if (username !== undefined) selection.username = { is: searchText('username', username).toLowerCase() };
  if (usernamePrefix !== undefined) selection.username = { startsWith: searchText('username prefix', usernamePrefix) };
  if (status !== undefined) selection.status = oneOf('status', status, Object.values(PlayerStatus));
  if (accountEmail !== undefined) {
    const email = searchText('account e-mail', accountEmail, 320).toLowerCase();
    selection.accountId = (await accountWithEmail(db, email)).id;
  }
  return page('players', search, (after, take) => playersNewestFirst(db, selection, after, take));
}
