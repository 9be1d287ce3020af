// Which console session a command runs with: DEVPLAT_TOKEN when set, else the one stored for the
// console URL by `devplat login`.
import { credentialsPath, findSession } from './credentials.ts';
import { localProblem, NotSignedInError } from './errors.ts';

export interface ActiveSession {
  token: string;
  from: 'DEVPLAT_TOKEN' | 'credentials';
  email?: string;
  expiresAt?: string;
}

const signInHints = [
  'Sign in with: devplat login --email you@example.com',
  'No account yet? devplat register --email you@example.com --display-name "Your Name"',
];

export function activeSession(env: NodeJS.ProcessEnv, consoleUrl: string, now = Date.now()): ActiveSession {
  if (env.DEVPLAT_TOKEN) return { token: env.DEVPLAT_TOKEN, from: 'DEVPLAT_TOKEN' };
  const stored = findSession(credentialsPath(env), consoleUrl);
  if (!stored) {
    throw new NotSignedInError(
      localProblem('NOT_SIGNED_IN', 'Not signed in', `You are not signed in to the console at ${consoleUrl}.`),
      signInHints,
    );
  }
  if (Date.parse(stored.expires_at) <= now) {
    throw new NotSignedInError(
      localProblem(
        'NOT_SIGNED_IN',
        'Not signed in',
        `Your session at ${consoleUrl} ended at ${stored.expires_at}: sign in again.`,
      ),
      [`Sign in with: devplat login --email ${stored.email}`],
    );
  }
  return { token: stored.token, from: 'credentials', email: stored.email, expiresAt: stored.expires_at };
}

/** What to do when the console no longer accepts the session's token. */
export function refusedSessionHints(session: ActiveSession): string[] {
  return session.from === 'DEVPLAT_TOKEN'
    ? ['DEVPLAT_TOKEN holds a session the console no longer accepts: unset it, or put a current token in it.']
    : [`Sign in again with: devplat login --email ${session.email ?? 'you@example.com'}`];
}
