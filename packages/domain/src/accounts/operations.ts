// What can be done to a developer account: registration (the caller hashes the password, through
// @devplat/passwords), audited in its transaction. Suspension and reactivation reach the account's
// apps too: workflows/account-suspension.ts.
import type { Account, PrismaClient } from '@devplat/db';
import { recordAudit } from '../audit/store.ts';
import { Refusal } from '../refusal.ts';
import { insertAccount, isEmailTaken } from './store.ts';

export interface NewAccount {
  /** In lower case, as the console keeps it. */
  email: string;
  passwordHash: string;
  displayName: string;
}

/**
 * A full developer account, audited as account.register by itself; an e-mail address already
 * registered is refused (EMAIL_TAKEN).
 */
export async function registerAccount(
  prisma: PrismaClient,
  account: NewAccount,
  { requestId }: { requestId?: string } = {},
): Promise<Account> {
  try {
    return await prisma.$transaction(async (tx) => {
      const inserted = await insertAccount(tx, { ...account, kind: 'full' });
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
