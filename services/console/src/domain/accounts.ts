// Developer accounts: registration of full accounts, and the password check that opens a session.
// Only full accounts may use the console; a guest (made by the game platform, not here) is refused.
import type { Account, PrismaClient } from '@devplat/db';
import { ProblemError } from '@devplat/http';
import { decoyHash, hashPassword, verifyPassword } from '@devplat/passwords';
import { audit } from './audit.ts';
import { email, knownFields, password, requiredText } from './rules.ts';

export const minimumPasswordLength = 12;

export interface AccountView {
  id: string;
  email: string;
  kind: Account['kind'];
  display_name: string;
}

export const accountView = (account: Account): AccountView => ({
  id: account.id,
  email: account.email,
  kind: account.kind,
  display_name: account.displayName,
});

const isUniqueViolation = (error: unknown) => (error as { code?: string })?.code === 'P2002';

export async function registerAccount(prisma: PrismaClient, input: unknown, requestId?: string): Promise<Account> {
  const body = knownFields(input, ['email', 'password', 'display_name']);
  const address = email(body.email);
  const secret = password(body.password, minimumPasswordLength);
  const displayName = requiredText(body.display_name, 'display_name', 64);
  let account: Account;
  try {
    account = await prisma.account.create({
      data: { email: address, passwordHash: await hashPassword(secret), displayName, kind: 'full' },
    });
  } catch (error) {
    if (isUniqueViolation(error)) {
      throw new ProblemError('EMAIL_TAKEN', 'An account with this e-mail address exists. Sign in instead.');
    }
    throw error;
  }
  await audit(prisma, { accountId: account.id, requestId }, 'account.register', { type: 'account', id: account.id });
  return account;
}

/** The account these credentials open, if it may use the console; otherwise a refusal. */
export async function authenticate(prisma: PrismaClient, input: unknown): Promise<Account> {
  const body = knownFields(input, ['email', 'password']);
  const address = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
  const secret = typeof body.password === 'string' ? body.password : '';
  const account = address ? await prisma.account.findUnique({ where: { email: address } }) : null;
  // The same work whether or not the account exists: timing does not say which e-mails are known.
  const valid = await verifyPassword(secret, account?.passwordHash ?? (await decoyHash()));
  if (!account || !valid) throw new ProblemError('INVALID_CREDENTIALS', 'The e-mail or the password is wrong.');
  usable(account);
  return account;
}

/** Throws unless the account may use the console now. */
export function usable(account: Account): void {
  if (account.kind !== 'full') {
    throw new ProblemError(
      'GUEST_ACCOUNT',
      'Guest accounts cannot use the developer console. Register a full account to create apps.',
    );
  }
  if (account.status !== 'active') {
    throw new ProblemError('ACCOUNT_SUSPENDED', 'This developer account is suspended.');
  }
}
