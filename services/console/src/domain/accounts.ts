// Developer accounts: registration of full accounts, the password check that opens a session, and
// which account a session belongs to. Only full, active accounts may use the console; a guest (made
// by the game platform, not here) is refused.
import type { Account, PrismaClient } from '@devplat/db';
import { findAccount, findAccountByEmail, registerAccount } from '@devplat/domain/accounts';
import { refuse } from '@devplat/domain/refusal';
import { decoyHash, hashPassword, verifyPassword } from '@devplat/passwords';
import type { SignInThrottle } from '@devplat/throttle';
import { email, knownFields, password, requiredText } from './rules.ts';
import type { ConsoleSession, ConsoleSessions } from './sessions.ts';
import { forgiven, throttled } from './throttling.ts';

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

/** A session's token, the session and the account it belongs to. */
export interface SignedIn {
  token: string;
  session: ConsoleSession;
  account: Account;
}

/** Refuses an account that may not use the console now. */
function usable(account: Account): Account {
  if (account.kind !== 'full') {
    refuse('GUEST_ACCOUNT', 'Guest accounts cannot use the developer console. Register a full account to create apps.');
  }
  if (account.status !== 'active') refuse('ACCOUNT_SUSPENDED', 'This developer account is suspended.');
  return account;
}

/** Who is asking, for the audit record and the throttle. */
export interface Requester {
  requestId?: string;
  /** The client's address (behind the gateway, the one it saw). */
  address: string;
}

/**
 * Sign-in and registration share one throttle (per e-mail address and per client address): a wrong
 * password and an e-mail address already registered count alike, so probing which addresses have
 * accounts through registration is no faster than guessing passwords.
 */
export function developerAccounts(prisma: PrismaClient, throttle: SignInThrottle) {
  return {
    async register(input: unknown, { requestId, address: client }: Requester): Promise<Account> {
      const body = knownFields(input, ['email', 'password', 'display_name']);
      const address = email(body.email);
      const secret = password(body.password, minimumPasswordLength);
      const displayName = requiredText(body.display_name, 'display_name', 64);
      const attempt = { account: address, address: client };
      await throttled(throttle, attempt);
      const passwordHash = await hashPassword(secret);
      // An address already registered is refused (EMAIL_TAKEN) and stays counted on the throttle.
      const registered = await registerAccount(prisma, { email: address, passwordHash, displayName }, { requestId });
      await forgiven(throttle, attempt);
      return registered;
    },

    /**
     * The account these credentials open, if it may use the console; otherwise a refusal. Each
     * attempt counts on the throttle before any lookup, so a locked one costs no password check
     * and known and unknown e-mail addresses are answered alike.
     */
    async authenticate(input: unknown, { address: client }: Requester): Promise<Account> {
      const body = knownFields(input, ['email', 'password']);
      const address = typeof body.email === 'string' ? body.email.trim().toLowerCase() : '';
      const secret = typeof body.password === 'string' ? body.password : '';
      const attempt = { account: address, address: client };
      await throttled(throttle, attempt);
      const account = address ? await findAccountByEmail(prisma, address) : null;
      // The same work whether or not the account exists: timing does not say which e-mails are known.
      const valid = await verifyPassword(secret, account?.passwordHash ?? (await decoyHash()));
      if (!account || !valid) refuse('INVALID_CREDENTIALS', 'The e-mail or the password is wrong.');
      await throttle.succeeded(attempt);
      return usable(account);
    },

    /**
     * Who a session token of these sessions (the API's bearer tokens or the web UI's cookie
     * sessions) belongs to: null without a current session, a refusal when its account may no
     * longer use the console.
     */
    async signedIn(sessions: ConsoleSessions, token: string | undefined): Promise<SignedIn | null> {
      const session = await sessions.find(token);
      if (!token || !session) return null;
      const account = await findAccount(prisma, session.accountId);
      return account ? { token, session, account: usable(account) } : null;
    },
  };
}
export type DeveloperAccounts = ReturnType<typeof developerAccounts>;
