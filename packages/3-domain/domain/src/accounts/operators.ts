// Developer accounts as an operator names them, by e-mail or by id: the admin command and the
// admin API find them here, and are refused alike (ACCOUNT_NOT_FOUND) when no account has that name.
import { type Account, isUuid } from '@devplat/db';
import type { Db } from '../db.ts';
import { refuse } from '../refusal.ts';
import { findAccount, findAccountByEmail } from './store.ts';

/**
 * The account with this e-mail address, looked up in lower case as the console keeps them;
 * ACCOUNT_NOT_FOUND, naming the address as given, when there is none.
 */
export async function accountWithEmail(db: Db, email: string): Promise<Account> {
  const account = await findAccountByEmail(db, email.toLowerCase());
  return account ?? refuse('ACCOUNT_NOT_FOUND', `no developer account has the e-mail ${email}`);
}

/** The account an operator names by id or by e-mail (in any case); ACCOUNT_NOT_FOUND when none. */
export async function accountNamed(db: Db, given: string): Promise<Account> {
  if (!isUuid(given)) return accountWithEmail(db, given);
  const account = await findAccount(db, given.toLowerCase());
  return account ?? refuse('ACCOUNT_NOT_FOUND', `no developer account has the id ${given}`);
}
