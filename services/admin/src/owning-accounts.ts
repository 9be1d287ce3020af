// Apps and sandbox players belong to a developer account, which the operator knows by its e-mail:
// rows shown with their account's id and e-mail, the e-mails of a whole page read in one statement.
import type { PrismaClient } from '@devplat/db';
import { emailsOfAccounts } from '@devplat/domain/accounts';

/** The account a row belongs to; email null when the account is gone. */
export interface OwningAccount {
  id: string;
  email: string | null;
}

/** Each row shown by `show`, given the account it belongs to. */
export async function withOwningAccounts<Row extends { accountId: string }, Shown>(
  prisma: PrismaClient,
  rows: readonly Row[],
  show: (row: Row, account: OwningAccount) => Shown,
): Promise<Shown[]> {
  const emails = await emailsOfAccounts(
    prisma,
    rows.map((row) => row.accountId),
  );
  return rows.map((row) => show(row, { id: row.accountId, email: emails.get(row.accountId) ?? null }));
}

/** One row shown by `show`, given the account it belongs to. */
export async function withOwningAccount<Row extends { accountId: string }, Shown>(
  prisma: PrismaClient,
  row: Row,
  show: (row: Row, account: OwningAccount) => Shown,
): Promise<Shown> {
  return (await withOwningAccounts(prisma, [row], show))[0]!;
}
