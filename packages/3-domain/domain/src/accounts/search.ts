// Finding developer accounts, for the operator: by e-mail (the whole address, or a part of it),
// status and when they were created, newest first, a page at a time.
import { type Account, AccountStatus } from '@devplat/db';
import type { Db } from '../db.ts';
import { oneOf, type Page, page, searchText, timeRange } from '../paging.ts';
import { Refusal } from '../refusal.ts';
import { type AccountSelection, accountsNewestFirst } from './store.ts';

export interface AccountSearch {
  /** The whole e-mail address, in any case. */
  email?: string;
  /** A part of the address, in any case: a name, or a domain such as "@example.com". */
  emailContains?: string;
  /** active or suspended. */
  status?: string;
  /** Created from this instant (inclusive): ISO 8601 with a zone, or a date (midnight UTC). */
  createdSince?: string | Date;
  /** Created before this instant (exclusive). */
  createdUntil?: string | Date;
  /** Accounts per page: 1 to 200, default 50. */
  limit?: number;
  /** The nextCursor of the page before. */
  cursor?: string;
}

/** One page of the accounts found, newest first. */
export async function searchAccounts(db: Db, search: AccountSearch): Promise<Page<Account>> {
  const { email, emailContains, status, createdSince, createdUntil } = search;
  if (email !== undefined && emailContains !== undefined) {
    throw new Refusal('INVALID_INPUT', 'search by the whole e-mail address or by a part of it, not both');
  }
  const selection: AccountSelection = {};
  // The console keeps addresses in lower case.
  if (email !== undefined) selection.email = { is: searchText('email', email, 320).toLowerCase() };
  if (emailContains !== undefined) selection.email = { contains: searchText('email part', emailContains, 320) };
  if (status !== undefined) selection.status = oneOf('status', status, Object.values(AccountStatus));
  const createdAt = timeRange({ since: 'created since', until: 'created until' }, createdSince, createdUntil);
  if (createdAt) selection.createdAt = createdAt;
  return page('accounts', search, (after, take) => accountsNewestFirst(db, selection, after, take));
}
