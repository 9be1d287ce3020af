// Console sessions, two kinds that never stand in for each other: the web UI's cookie sessions
// (`dcw_` tokens) and the API's bearer tokens (`dps_`, from POST /api/sessions). Each lives under
// its own keys, so a cookie value presented as a bearer token (or the reverse) opens nothing. The
// store keeps only SHA-256 hashes of the tokens.
import type { Account } from '@devplat/db';
import type { DeveloperAccounts } from '@devplat/domain/accounts';
import { type Session, type SessionStore, sessionStore } from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';

export type ConsoleSession = Session<{ accountId: string }>;
export type ConsoleSessions = SessionStore<{ accountId: string }>;

const lifetimeSeconds = 12 * 60 * 60;

/** A session's token, the session and the account it belongs to. */
export interface SignedIn {
  token: string;
  session: ConsoleSession;
  account: Account;
}

export function consoleSessions(store: KeyValueStore, accounts: Pick<DeveloperAccounts, 'ofSession'>) {
  const web: ConsoleSessions = sessionStore(store, {
    keyPrefix: 'console-web-session',
    tokenPrefix: 'dcw_',
    lifetimeSeconds,
  });
  const api: ConsoleSessions = sessionStore(store, {
    keyPrefix: 'console-session',
    tokenPrefix: 'dps_',
    lifetimeSeconds,
  });
  return {
    web,
    api,

    /**
     * Who a session token of these sessions (the API's bearer tokens or the web UI's cookie
     * sessions) belongs to: null without a current session, a refusal when its account may no
     * longer use the console.
     */
    async signedIn(sessions: ConsoleSessions, token: string | undefined): Promise<SignedIn | null> {
      const session = await sessions.find(token);
      if (!token || !session) return null;
      const account = await accounts.ofSession(session.accountId);
      return account ? { token, session, account } : null;
    },
  };
}
