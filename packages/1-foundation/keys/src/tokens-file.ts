// The operator tokens file (ADMIN_TOKENS_FILE): one line per token, `<name> <role> <hash>`, the
// hash being secretHash of the token, so the file holds no token and a copy of it opens nothing. `#`
// starts a comment; blank lines are skipped. A line that cannot be read is reported by its number
// and skipped, so one slip never locks every operator out; a report never quotes the line (it may
// hold a token pasted in by mistake).

/** What an operator token starts with: a secret scanner's match, and what a person recognises. */
export const operatorTokenPrefix = 'devplat_admin_';

/** `read` reads; `write` also changes (suspends, disables, …). */
export const operatorRoles = ['read', 'write'] as const;
export type OperatorRole = (typeof operatorRoles)[number];

/**
 * An operator's name: what audit records name as the actor, so at most 100 characters (as the
 * admin command's --operator), and no spaces (a field of the file).
 */
export const operatorNamePattern = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,99}$/;

export interface OperatorToken {
  name: string;
  role: OperatorRole;
  /** secretHash of the token: SHA-256, 64 lower-case hex digits. */
  hash: string;
  /** Its line in the file, for the log. */
  line: number;
}

export interface TokensFileProblem {
  line: number;
  reason: string;
}

const hashPattern = /^[0-9a-f]{64}$/;

function problemOf(fields: string[], hashes: Map<string, number>): string | null {
  if (fields.length !== 3) return `expected <name> <role> <hash>, found ${fields.length} field(s)`;
  const [name, role, hash] = fields as [string, string, string];
  if (fields.some((field) => field.startsWith(operatorTokenPrefix))) {
    return 'it holds a token: the file takes the hash that admin create-token prints, never the token';
  }
  if (!operatorNamePattern.test(name)) {
    return 'the name must be 1 to 100 letters, digits, ".", "_", "@" or "-", starting with a letter or digit';
  }
  if (!(operatorRoles as readonly string[]).includes(role)) return `the role must be ${operatorRoles.join(' or ')}`;
  if (!hashPattern.test(hash)) return 'the hash must be 64 lower-case hexadecimal digits (SHA-256)';
  const earlier = hashes.get(hash);
  if (earlier !== undefined) return `the same hash as line ${earlier}`;
  return null;
}

export function parseTokensFile(text: string): { tokens: OperatorToken[]; problems: TokensFileProblem[] } {
  const tokens: OperatorToken[] = [];
  const problems: TokensFileProblem[] = [];
  const hashes = new Map<string, number>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const content = (raw.split('#')[0] ?? '').trim();
    if (content === '') return;
    const fields = content.split(/\s+/);
    const reason = problemOf(fields, hashes);
    if (reason !== null) {
      problems.push({ line, reason });
      return;
    }
    const [name, role, hash] = fields as [string, OperatorRole, string];
    hashes.set(hash, line);
    tokens.push({ name, role, hash, line });
  });
  return { tokens, problems };
}
