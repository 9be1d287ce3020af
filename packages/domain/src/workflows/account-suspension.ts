// An operator suspends or reactivates a developer account, audited in its transaction; it reaches
// every app of the account: their app directory entries are bumped before and after it (the apps
// room's changedApps), so the account's apps stop, or work again, on the next request in every
// process.
import type { Account, AccountStatus, Prisma, PrismaClient } from '@devplat/db';
import { changeAccountStatus } from '../accounts/store.ts';
import { type AppChangeNotice, changedApps } from '../apps/operations.ts';
import { type Operator, recordAudit } from '../audit/store.ts';

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
