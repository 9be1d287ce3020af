// Which credential a command runs with: an API key when one is given (the first line of stdin with
// --api-key-stdin, else DEVPLAT_API_KEY), else a console session: DEVPLAT_TOKEN when set, else the
// one stored for the console URL by `devplat login`. Commands that only a session may run (managing
// API keys, logout) pass over a key and take the session.
import { UsageError } from '@devplat/command-line';
import { apiKeyPrefix } from '@devplat/contract';
import { credentialsPath, findSession } from './credentials.ts';
import { localProblem, NotSignedInError } from './errors.ts';

/** Where an API key came from. */
export type ApiKeySource = 'DEVPLAT_API_KEY' | '--api-key-stdin';

export interface GivenApiKey {
  key: string;
  from: ApiKeySource;
}

export interface ActiveSession {
  /** The bearer credential: a session token, or an API key. */
  token: string;
  from: 'DEVPLAT_TOKEN' | 'credentials' | ApiKeySource;
  email?: string;
  expiresAt?: string;
}

export interface SessionOptions {
  /** Only a session will do (managing API keys, logout): an API key given is passed over. */
  sessionOnly?: boolean;
}

export const isApiKey = (session: ActiveSession) =>
  session.from === 'DEVPLAT_API_KEY' || session.from === '--api-key-stdin';

const signInHints = [
  'Sign in with: devplat login --email you@example.com',
  'No account yet? devplat register --email you@example.com --display-name "Your Name"',
];

const keyForm = `${apiKeyPrefix} followed by 43 letters and digits`;

/** The API key given to this run: --api-key-stdin's line (read already), else DEVPLAT_API_KEY; null for none. */
export function givenApiKey(env: NodeJS.ProcessEnv, stdinLine?: string): GivenApiKey | null {
  const [given, from]: [string | undefined, ApiKeySource] =
    stdinLine === undefined ? [env.DEVPLAT_API_KEY, 'DEVPLAT_API_KEY'] : [stdinLine, '--api-key-stdin'];
  const key = given?.trim();
  if (!key) return null;
  if (!key.startsWith(apiKeyPrefix)) {
    const session = key.startsWith('dps_') ? ': that is a console session token, which goes in DEVPLAT_TOKEN' : '';
    throw new UsageError(`${from} must hold an API key (${keyForm})${session}.`);
  }
  return { key, from };
}

export function activeSession(
  env: NodeJS.ProcessEnv,
  consoleUrl: string,
  apiKey: GivenApiKey | null = null,
  { sessionOnly = false }: SessionOptions = {},
  now = Date.now(),
): ActiveSession {
  if (apiKey && !sessionOnly) return { token: apiKey.key, from: apiKey.from };
  if (env.DEVPLAT_TOKEN) return { token: env.DEVPLAT_TOKEN, from: 'DEVPLAT_TOKEN' };
  const keyNote = apiKey
    ? [`An API key (${apiKey.from}) cannot manage API keys or sign out: that takes a signed-in session.`]
    : [];
  const stored = findSession(credentialsPath(env), consoleUrl);
  if (!stored) {
    throw new NotSignedInError(
      localProblem('NOT_SIGNED_IN', 'Not signed in', `You are not signed in to the console at ${consoleUrl}.`),
      [...keyNote, ...signInHints],
    );
  }
  if (Date.parse(stored.expires_at) <= now) {
    throw new NotSignedInError(
      localProblem(
        'NOT_SIGNED_IN',
        'Not signed in',
        `Your session at ${consoleUrl} ended at ${stored.expires_at}: sign in again.`,
      ),
      [...keyNote, `Sign in with: devplat login --email ${stored.email}`],
    );
  }
  return { token: stored.token, from: 'credentials', email: stored.email, expiresAt: stored.expires_at };
}

/** What to do when the console no longer accepts the credential. */
export function refusedSessionHints(session: ActiveSession): string[] {
  if (isApiKey(session)) {
    const which = session.from === 'DEVPLAT_API_KEY' ? 'The API key in DEVPLAT_API_KEY' : 'The API key read from stdin';
    return [
      `${which} is not accepted (the error says why).`,
      'Make a new one while signed in: devplat keys create --name <name> --scope read|write ' +
        '(or API keys in the console), then use it instead.',
    ];
  }
  return session.from === 'DEVPLAT_TOKEN'
    ? ['DEVPLAT_TOKEN holds a session the console no longer accepts: unset it, or put a current token in it.']
    : [`Sign in again with: devplat login --email ${session.email ?? 'you@example.com'}`];
}
