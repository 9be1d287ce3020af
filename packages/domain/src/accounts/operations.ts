// What can be done to a developer account: registration (the caller hashes the password, through
// @devplat/passwords), suspension and reactivation by an operator, each audited in its
// transaction. A suspension or reactivation bumps the app directory entries of every app of the
// account before and after it (the apps room's changedApps), so the account's apps stop, or work
// again, on the next request in every process.
import type { Account, AccountStatus, Prisma, PrismaClient } from '@devplat/db';
import { type AppChangeNotice, changedApps } from '../apps/operations.ts';
import { type Operator, recordAudit } from '../audit/store.ts';
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

/** What the audit record of a status change says beside the account's e-mail: why, say. */
type Details = Prisma.InputJsonObject;

/** The account's apps stop working on the next request; their consents and secrets are kept (account.suspend). */
export function suspendAccount(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: Operator,
  account: Pick<Account, 'id' | 'email'>,
  details: Details = {},
): Promise<boolean> {
  return toStatus(prisma, directory, by, account, 'suspended', 'account.suspend', details);
}

/** The reverse of suspendAccount: the account's apps work again (those not disabled on their own). */
export function reactivateAccount(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: Operator,
  account: Pick<Account, 'id' | 'email'>,
  details: Details = {},
): Promise<boolean> {
  return toStatus(prisma, directory, by, account, 'active', 'account.reactivate', details);
}

// Suspends an active account or reactivates a suspended one, with its apps' directory entries;
// false (nothing recorded) when it had the status already.
function toStatus(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: Operator,
  { id, email }: Pick<Account, 'id' | 'email'>,
  status: AccountStatus,
  action: string,
  details: Details,
): Promise<boolean> {
  return changedApps(
    prisma,
    directory,
    { accountId: id },
    (tx) => changeAccountStatus(tx, id, status),
    async (tx) => {
      await recordAudit(tx, by, action, { type: 'account', id }, { email, ...details });
    },
  );
}
