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

/** An operator's change of an account's status: false (nothing recorded) when it had the status already. */
export type AccountStatusChange = (
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: Operator,
  account: Pick<Account, 'id' | 'email'>,
  details?: Details,
) => Promise<boolean>;

// Suspends an active account or reactivates a suspended one, with its apps' directory entries.
const toStatus =
  (status: AccountStatus, action: string): AccountStatusChange =>
  (prisma, directory, by, { id, email }, details = {}) => {
    const change = (tx: Prisma.TransactionClient) => changeAccountStatus(tx, id, status);
    return changedApps(prisma, directory, { accountId: id }, change, async (tx) => {
      await recordAudit(tx, by, action, { type: 'account', id }, { email, ...details });
    });
  };

/** The account's apps stop working on the next request; their consents and secrets are kept (account.suspend). */
export const suspendAccount = toStatus('suspended', 'account.suspend');

/** The reverse of suspendAccount: the account's apps work again (those not disabled on their own). */
export const reactivateAccount = toStatus('active', 'account.reactivate');
