// Console sessions kept between commands: one credentials.json (mode 0600, in a 0700 directory)
// holding a session per console URL, so a developer can be signed in to several consoles at once.
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { failure } from './errors.ts';

export interface StoredSession {
  token: string;
  email: string;
  expires_at: string;
}

interface CredentialsDocument {
  sessions: Record<string, StoredSession>;
}

/** $DEVPLAT_CONFIG_DIR, else ${XDG_CONFIG_HOME:-~/.config}/devplat. */
export function configDir(env: NodeJS.ProcessEnv): string {
  if (env.DEVPLAT_CONFIG_DIR) return env.DEVPLAT_CONFIG_DIR;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'devplat');
}

export const credentialsPath = (env: NodeJS.ProcessEnv) => join(configDir(env), 'credentials.json');

function read(path: string): CredentialsDocument {
  if (!existsSync(path)) return { sessions: {} };
  try {
    const document = JSON.parse(readFileSync(path, 'utf8')) as Partial<CredentialsDocument>;
    if (typeof document.sessions === 'object' && document.sessions !== null) {
      return { sessions: document.sessions };
    }
  } catch {
    // reported below
  }
  throw failure(
    'CREDENTIALS_UNREADABLE',
    'Credentials file unreadable',
    `${path} is not a credentials file devplat wrote: delete it and sign in again.`,
  );
}

/** Replaces the file in one step, so a crash never leaves half a file or a moment of wider mode. */
function write(path: string, document: CredentialsDocument): void {
  const directory = dirname(path);
  mkdirSync(directory, { recursive: true, mode: 0o700 });
  chmodSync(directory, 0o700);
  if (Object.keys(document.sessions).length === 0) {
    rmSync(path, { force: true });
    return;
  }
  const scratch = `${path}.${process.pid}.tmp`;
  writeFileSync(scratch, `${JSON.stringify(document, null, 2)}\n`, { mode: 0o600, flag: 'w' });
  chmodSync(scratch, 0o600);
  renameSync(scratch, path);
}

export function findSession(path: string, consoleUrl: string): StoredSession | undefined {
  return read(path).sessions[consoleUrl];
}

export function storeSession(path: string, consoleUrl: string, session: StoredSession): void {
  const document = read(path);
  document.sessions[consoleUrl] = session;
  write(path, document);
}

/** Forgets the console's session; true when there was one. */
export function forgetSession(path: string, consoleUrl: string): boolean {
  const document = read(path);
  if (!(consoleUrl in document.sessions)) return false;
  delete document.sessions[consoleUrl];
  write(path, document);
  return true;
}
