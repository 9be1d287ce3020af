// A developer's own account, as the console serves it: registration of a full account and the
// password check that opens a session, both behind the sign-in throttle, from the developer's input
// checked by the account's rules (rules.ts), and whether an account may use the console now. Only
// full, active accounts may; a guest (made by the game platform) is refused.
import type { Account, PrismaClient } from '@devplat/db';
import { decoyHash, verifyPassword } from '@devplat/passwords';
import type { SignInThrottle } from '@devplat/throttle';
import type { JsonBody } from '../input.ts';
import { refuse } from '../refusal.ts';
import { forgiven, throttled } from '../throttled.ts';
import { registerAccount } from './operations.ts';
import { checkedAccount } from './rules.ts';
import { findAccount, findAccountByEmail } from './store.ts';

/** The account, when it may use the console now; else GUEST_ACCOUNT or ACCOUNT_SUSPENDED. */
export function usableAccount(account: Account): Account {
  if (account.kind !== 'full') {
    refuse('GUEST_ACCOUNT', 'Guest accounts cannot use the developer console. Register a full account to create apps.');
  }
  if (account.status !== 'active') refuse('ACCOUNT_SUSPENDED', 'This developer account is suspended.');
  return account;
}

/** A registration as a door reads it, before the account's rules: the password as given. */
export interface Registration {
  email: string;
  password: string;
  displayName: string;
}

/** Who is asking, for the audit record and the throttle. */
export interface Requester {
  requestId?: string;
  /** The client's address (behind the gateway, the one it saw). */
  address: string;
}

/**
 * Registers a full developer account. Sign-in and registration share one throttle (per e-mail
 * address and per client address): a wrong password and an e-mail address already registered count
 * alike, so probing which addresses have accounts through registration is no faster than guessing
 * passwords.
 */
export async function registerDeveloper(
  prisma: PrismaClient,
  throttle: SignInThrottle,
  registration: Registration,
  { requestId, address }: Requester,
): Promise<Account> {
  // Checked before the throttle too (registerAccount checks it again): input the rules refuse never
  // counts as an attempt.
  const checked = checkedAccount(registration);
  const attempt = { account: checked.email, address };
  await throttled(throttle, attempt);
  // An address already registered is refused (EMAIL_TAKEN) and stays counted on the throttle.
  const registered = await registerAccount(prisma, checked, { requestId });
  await forgiven(throttle, attempt);
  return registered;
}

/**
 * The account these credentials open, if it may use the console; otherwise a refusal. Each attempt
 * counts on the throttle before any lookup, so a locked one costs no password check, and known and
 * unknown e-mail addresses are answered alike.
 */
export async function authenticateDeveloper(
  prisma: PrismaClient,
  throttle: SignInThrottle,
  credentials: { email: string; password: string },
  address: string,
): Promise<Account> {
  const attempt = { account: credentials.email, address };
  await throttled(throttle, attempt);
  const account = credentials.email ? await findAccountByEmail(prisma, credentials.email) : null;
  // The same work whether or not the account exists: timing does not say which e-mails are known.
  const valid = await verifyPassword(credentials.password, account?.passwordHash ?? (await decoyHash()));
  if (!account || !valid) refuse('INVALID_CREDENTIALS', 'The e-mail or the password is wrong.');
  await throttle.succeeded(attempt);
  return usableAccount(account);
}

/** The console's operations on developers' accounts, over these stores: they read the requests. */
export function developerAccounts(prisma: PrismaClient, throttle: SignInThrottle) {
  return {
    register(body: JsonBody, requester: Requester): Promise<Account> {
      // The JSON read here; the account's rules (rules.ts) check every member.
      const registration = {
        email: body.email as string,
        password: body.password as string,
        displayName: body.display_name as string,
      };
      return registerDeveloper(prisma, throttle, registration, requester);
    },

    /** The account these credentials open, if it may use the console; otherwise a refusal. */
    authenticate(body: JsonBody, { address }: Requester): Promise<Account> {
      const credentials = {
        email: typeof body.email === 'string' ? body.email.trim().toLowerCase() : '',
        password: typeof body.password === 'string' ? body.password : '',
      };
      return authenticateDeveloper(prisma, throttle, credentials, address);
    },

    /**
     * The account a console session belongs to: null when it is gone, a refusal when it may no
     * longer use the console.
     */
    async ofSession(accountId: string): Promise<Account | null> {
      const account = await findAccount(prisma, accountId);
      return account ? usableAccount(account) : null;
    },
  };
}
export type DeveloperAccounts = ReturnType<typeof developerAccounts>;
