// The tokens file as a listener holds it: read at start, then read again every second and taken
// anew whenever its content changed. Polled, not watched: a Kubernetes Secret volume changes by
// swapping a symlink, which fs.watch on the file does not report, and reading a small file once a
// second costs nothing. So a token removed from the file stops working within about a second of
// the file changing. A file missing or unreadable means no token works (fail closed), said once
// each time it happens; a line that cannot be read is said by its number when the content changes.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { matchesHash } from './secrets.ts';
import { type OperatorToken, parseTokensFile } from './tokens-file.ts';

/** Where the watcher reports (a pino logger fits). Never given a line's text, a hash or a token. */
export interface TokensFileLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface WatchedTokens {
  /** The token's entry, compared in constant time with each; null when none matches. */
  find(token: string): Pick<OperatorToken, 'name' | 'role'> | null;
  /** How many tokens the file holds now. */
  size(): number;
  /** Stops polling. */
  close(): void;
}

/** Longer than any key we make: not worth hashing. */
const maxTokenLength = 256;

export function watchTokensFile(
  file: string,
  log: TokensFileLog,
  { intervalMs = 1_000 }: { intervalMs?: number } = {},
): WatchedTokens {
  let tokens: OperatorToken[] = [];
  // The content last taken (null: none, the file could not be read), and the failure last said.
  let taken: string | null = null;
  let failure: string | null = null;

  const take = (text: string) => {
    failure = null;
    if (text === taken) return;
    taken = text;
    const parsed = parseTokensFile(text);
    for (const { line, reason } of parsed.problems) {
      log.warn({ file, line, reason }, `operator tokens file: line ${line} ignored: ${reason}`);
    }
    tokens = parsed.tokens;
    log.info({ file, tokens: tokens.length }, `operator tokens file: ${tokens.length} token(s) loaded`);
  };
  const fail = (error: unknown) => {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    tokens = [];
    taken = null;
    if (failure === code) return;
    failure = code;
    const why = code === 'ENOENT' ? 'does not exist' : `cannot be read (${code})`;
    log.warn({ file, error: code }, `operator tokens file ${why}: no operator token works until it can be read`);
  };

  try {
    take(readFileSync(file, 'utf8'));
  } catch (error) {
    fail(error);
  }
  let reading = false;
  const timer = setInterval(() => {
    if (reading) return;
    reading = true;
    readFile(file, 'utf8')
      .then(take, fail)
      .finally(() => {
        reading = false;
      });
  }, intervalMs);
  timer.unref();

  return {
    find(token) {
      if (token.length > maxTokenLength) return null;
      // Every entry is compared, so the time taken does not say which one matched.
      let found: OperatorToken | null = null;
      for (const entry of tokens) if (matchesHash(token, entry.hash) && found === null) found = entry;
      return found && { name: found.name, role: found.role };
    },
    size: () => tokens.length,
    close: () => clearInterval(timer),
  };
}
