// Developer accounts at the console: registration, the password check that opens a session, and
// which account a session belongs to. The rules (the throttle, who may use the console) are the
// accounts room's (@devplat/domain/accounts); this door reads the requests and gives the views.
import type { Account, PrismaClient } from '@devplat/db';
import {
  authenticateDeveloper,
  findAccount,
  minimumPasswordLength,
  type Requester,
  registerDeveloper,
  usableAccount,
} from '@devplat/domain/accounts';
import type { SignInThrottle } from '@devplat/throttle';
import { email, type JsonBody, password, requiredText } from './rules.ts';
import type { ConsoleSession, ConsoleSessions } from './sessions.ts';

export { minimumPasswordLength, type Requester };

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

/** The console's door to developers' accounts (@devplat/domain/accounts): it reads the requests. */
export function developerAccounts(prisma: PrismaClient, throttle: SignInThrottle) {
  return {
    register(body: JsonBody, requester: Requester): Promise<Account> {
      const registration = {
        email: email(body.email),
        password: password(body.password, minimumPasswordLength),
        displayName: requiredText(body.display_name, 'display_name', 64),
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
     * Who a session token of these sessions (the API's bearer tokens or the web UI's cookie
     * sessions) belongs to: null without a current session, a refusal when its account may no
     * longer use the console.
     */
    async signedIn(sessions: ConsoleSessions, token: string | undefined): Promise<SignedIn | null> {
      const session = await sessions.find(token);
      if (!token || !session) return null;
      const account = await findAccount(prisma, session.accountId);
      return account ? { token, session, account: usableAccount(account) } : null;
    },
  };
}
export type DeveloperAccounts = ReturnType<typeof developerAccounts>;
