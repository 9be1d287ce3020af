// The accounts table: every statement on developer accounts is here, and only these write them.
// Two reads stay outside, on purpose, each one statement across areas on a hot path: the app
// directory's per-request read (packages/3-domain/app-directory/src/usable-app.ts) and the api's per-call liveness
// statement (services/api/src/liveness.ts) read an app's account status with the app.
import { type Account, type AccountStatus, isUuid, type Prisma, storableText } from '@devplat/db';
import type { Db } from '../db.ts';
import { beyond, likeLiteral, orderOf, type Position } from '../paging.ts';

export type NewAccountRow = Pick<Account, 'email' | 'passwordHash' | 'displayName' | 'kind'>;

export const insertAccount = (tx: Prisma.TransactionClient, data: NewAccountRow): Promise<Account> =>
  tx.account.create({ data });

/**
 * Locks the account's row for the rest of the transaction: what an account may hold only so many
 * of (its API keys) is counted and added in turns, as adding a client secret locks its app.
 */
export async function lockAccount(tx: Prisma.TransactionClient, accountId: string): Promise<void> {
  await tx.$queryRaw`SELECT id FROM accounts WHERE id = ${accountId}::uuid FOR UPDATE`;
}

/** Whether a failed insert failed on the unique e-mail address. */
export const isEmailTaken = (error: unknown): boolean => (error as { code?: string })?.code === 'P2002';

/** Suspends an active account or reactivates a suspended one; count 0 when it had the status already. */
export function changeAccountStatus(
  tx: Prisma.TransactionClient,
  accountId: string,
  status: AccountStatus,
): Promise<{ count: number }> {
  const suspending = status === 'suspended';
  return tx.account.updateMany({
    where: { id: accountId, status: suspending ? 'active' : 'suspended' },
    data: { status, suspendedAt: suspending ? new Date() : null },
  });
}

export const findAccount = (db: Db, accountId: string): Promise<Account | null> =>
  db.account.findUnique({ where: { id: accountId } });

/**
 * The account with this e-mail address, as stored (the console keeps them in lower case); none for
 * text no row can hold (@devplat/db's storableText), which never reaches the query.
 */
export const findAccountByEmail = async (db: Db, email: string): Promise<Account | null> =>
  storableText(email) ? db.account.findUnique({ where: { email } }) : null;

/** Which accounts a search reads; every member given must hold. */
export interface AccountSelection {
  /** The whole address, as stored (lower case), or a part of it in any case. */
  email?: { is: string } | { contains: string };
  status?: AccountStatus;
  createdAt?: { gte?: Date; lt?: Date };
}

/** Up to `take` selected accounts after a position (null: from the newest), newest first. */
export const accountsNewestFirst = (
  db: Db,
  { email, status, createdAt }: AccountSelection,
  after: Position | null,
  take: number,
): Promise<Account[]> =>
  db.account.findMany({
    where: {
      AND: [
        {
          ...(email &&
            ('is' in email
              ? { email: email.is }
              : { email: { contains: likeLiteral(email.contains), mode: 'insensitive' as const } })),
          ...(status && { status }),
          ...(createdAt && { createdAt }),
        },
        ...(after ? [beyond(after, 'newest')] : []),
      ],
    },
    orderBy: orderOf('newest'),
    take,
  });

/** The e-mail of each of these accounts that exists, by id (ids that are not uuids name none). */
export async function emailsOfAccounts(db: Db, accountIds: readonly string[]): Promise<Map<string, string>> {
  const ids = [...new Set(accountIds)].filter(isUuid);
  if (ids.length === 0) return new Map();
  const rows = await db.account.findMany({ where: { id: { in: ids } }, select: { id: true, email: true } });
  return new Map(rows.map((row) => [row.id, row.email]));
}
