// What can be done to a developer account: registration (the caller hashes the password, through
// @devplat/passwords), suspension and reactivation. A suspension or reactivation bumps the app
// directory entries of every app of the account before and after it (the apps room's
// changedApps), so the account's apps stop, or work again, on the next request in every process.
import { type Account, type AccountStatus, audit, type InTransaction, type PrismaClient } from '@devplat/db';
import { type AppChangeNotice, changedApps } from '../apps/operations.ts';
import { Refusal } from '../refusal.ts';
import { changeAccountStatus, insertAccount, isEmailTaken } from './store.ts';

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
      await audit(tx, { accountId: inserted.id, requestId }, 'account.register', { type: 'account', id: inserted.id });
      return inserted;
    });
  } catch (error) {
    if (!isEmailTaken(error)) throw error;
    throw new Refusal('EMAIL_TAKEN', 'An account with this e-mail address exists. Sign in instead.', { cause: error });
  }
}

/** The account's apps stop working on the next request; their consents and secrets are kept. */
export function suspendAccount(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  accountId: string,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  return toStatus(prisma, directory, accountId, 'suspended', alsoInTransaction);
}

/** The reverse of suspendAccount: the account's apps work again (those not disabled on their own). */
export function reactivateAccount(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  accountId: string,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  return toStatus(prisma, directory, accountId, 'active', alsoInTransaction);
}

// Suspends an active account or reactivates a suspended one, with its apps' directory entries;
// false (nothing run in the transaction) when it had the status already.
function toStatus(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  accountId: string,
  status: AccountStatus,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  return changedApps(
    prisma,
    directory,
    { accountId },
    (tx) => changeAccountStatus(tx, accountId, status),
    alsoInTransaction,
  );
}
