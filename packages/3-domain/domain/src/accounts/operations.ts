// What can be done to a developer account: registration, checked by the account's rules (rules.ts)
// and audited in its transaction; the password is hashed here (@devplat/passwords). Suspension and
// reactivation reach the account's apps too: workflows/account-suspension.ts.
import type { Account, PrismaClient } from '@devplat/db';
import { hashPassword } from '@devplat/passwords';
import { recordAudit } from '../audit/store.ts';
import { Refusal } from '../refusal.ts';
import { checkedAccount } from './rules.ts';
import { insertAccount, isEmailTaken } from './store.ts';

/**
 * A registration: the password as given (the rules check it, then it is hashed here), or a hash
 * made elsewhere (a fixture's account, which no one signs in to: no rule can read a hash).
 */
export type NewAccount = { email: string; displayName: string } & ({ password: string } | { passwordHash: string });

/**
 * A full developer account, under the account's rules, audited as account.register by itself; an
 * e-mail address already registered is refused (EMAIL_TAKEN).
 */
export async function registerAccount(
  prisma: PrismaClient,
  account: NewAccount,
  { requestId }: { requestId?: string } = {},
): Promise<Account> {
  const { email, displayName, ...secret } = checkedAccount(account);
  const passwordHash = 'password' in secret ? await hashPassword(secret.password) : secret.passwordHash;
  try {
    return await prisma.$transaction(async (tx) => {
      const inserted = await insertAccount(tx, { email, passwordHash, displayName, kind: 'full' });
      await recordAudit(tx, { accountId: inserted.id, requestId }, 'account.register', {
        type: 'account',
        id: inserted.id,
      });
      return inserted;
    });
  } catch (error) {
    if (!isEmailTaken(error)) throw error;
    throw new Refusal('EMAIL_TAKEN', 'An account with this e-mail address exists. Sign in instead.', { cause: error });
  }
}
