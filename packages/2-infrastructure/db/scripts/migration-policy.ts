// The expand/contract migration policy, checked in CI by scripts/check-migrations.ts. A release
// migrates before its replicas replace the previous release's, and a rollback runs the previous
// build on the new schema: so a migration may only add (expand). What the previous release still
// reads is removed or changed one release later by a contract step: its directory named
// `<timestamp>_contract_…` (readiness reads that name, schema-version.ts) and its first line
// `-- contract: safe after release <release>`. `ALTER TYPE … ADD VALUE` is an expand step: that a
// new enum value is written only one release later is a rule of the policy no SQL shows.
//
// Two rules come from how this project applies a migration (packages/2-infrastructure/db/src/migrations.ts, the
// WASM schema engine over the application's driver adapter), tried on both of its paths:
// - on PostgreSQL, @prisma/adapter-pg splits the script on every `;`, even one in a comment or a
//   string, and runs each piece on its own, outside any transaction;
// - on PGlite (the embedded database) the whole script is one query, so an implicit transaction,
//   where PostgreSQL refuses CREATE INDEX CONCURRENTLY (and the adapter drops the error).
// So a `;` may only end a statement, and a CONCURRENTLY statement is its migration's only one.
// The SQL is lexed, never matched as text: comments, strings, quoted names and dollar-quoted
// bodies cannot pass for keywords.
import { isContractStep } from '../src/schema-version.ts';

/** The migrations in prisma/migrations before this check existed: written before the policy. */
export const grandfatheredMigrations: readonly string[] = [
  '20261122025657_init',
  '20261122032918_revoked_tokens',
  '20261123042745_webhook_deliveries_event_id',
  '20261123090518_app_edit_and_delete',
  '20261123092659_outbox_events_app_created',
  '20261125195929_app_suspension_operator_revocation',
  '20261125201235_audit_query_indexes',
  '20261125202600_app_search_indexes',
  '20261125203014_audit_records_app_id',
  '20261125204629_client_secret_last_used',
  '20261125223610_consents_app_granted_at',
];

/** What a contract step may do and an expand step may not. */
export type ContractRule =
  | 'drop'
  | 'rename'
  | 'column-type'
  | 'add-column-not-null'
  | 'set-not-null'
  | 'index-not-concurrent'
  | 'constraint-not-valid';

/** What no migration may do: a wrong contract mark, or SQL the migrate path cannot apply safely. */
export type ApplyRule = 'contract-mark' | 'lock-timeout' | 'concurrently-alone' | 'semicolon' | 'no-sql';

export type PolicyRule = ContractRule | ApplyRule;

export interface Finding {
  /** The migration's directory name. */
  migration: string;
  /** The statement on one line ('' when the finding is about the whole migration). */
  statement: string;
  rule: PolicyRule;
  /** What is wrong and what to do instead. */
  detail: string;
}

export interface MigrationSource {
  name: string;
  /** migration.sql, or null when the directory has none. */
  sql: string | null;
}

export interface PolicyReport {
  checked: number;
  grandfathered: number;
  findings: Finding[];
}

// --- Lexing and splitting -------------------------------------------------------------------

export type TokenKind = 'word' | 'quoted-name' | 'string' | 'number' | 'symbol' | 'comment';

export interface Token {
  kind: TokenKind;
  /** The source text, quotes and comment markers included. */
  text: string;
  start: number;
}

const wordStart = /[A-Za-z_\u0080-\uffff]/;
const wordPart = /[A-Za-z0-9_$\u0080-\uffff]/;
const dollarTag = /^\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/;

// Where a quoted token opened at `open` ends; a doubled quote stays inside, as does a
// backslash-escaped one in an E'…' string. Unterminated: the rest of the script.
function quotedEnd(sql: string, open: number, quote: string, backslashEscapes: boolean): number {
  let i = open + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (backslashEscapes && c === '\\') i += 2;
    else if (c === quote && sql[i + 1] === quote) i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return sql.length;
}

// Block comments nest in PostgreSQL.
function blockCommentEnd(sql: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return sql.length;
}

function runEnd(sql: string, from: number, part: RegExp): number {
  let i = from;
  while (i < sql.length && part.test(sql[i] as string)) i++;
  return i;
}

function tokenAt(sql: string, i: number): { kind: TokenKind; end: number } {
  const c = sql[i] as string;
  const next = sql[i + 1];
  if (c === '-' && next === '-') {
    const newline = sql.indexOf('\n', i);
    return { kind: 'comment', end: newline === -1 ? sql.length : newline };
  }
  if (c === '/' && next === '*') return { kind: 'comment', end: blockCommentEnd(sql, i) };
  if (c === "'") return { kind: 'string', end: quotedEnd(sql, i, "'", false) };
  if ((c === 'E' || c === 'e') && next === "'") return { kind: 'string', end: quotedEnd(sql, i + 1, "'", true) };
  if (c === '"') return { kind: 'quoted-name', end: quotedEnd(sql, i, '"', false) };
  const tag = c === '$' ? dollarTag.exec(sql.slice(i, i + 64))?.[0] : undefined;
  if (tag) {
    const close = sql.indexOf(tag, i + tag.length);
    return { kind: 'string', end: close === -1 ? sql.length : close + tag.length };
  }
  if (wordStart.test(c)) return { kind: 'word', end: runEnd(sql, i, wordPart) };
  if (/[0-9]/.test(c)) return { kind: 'number', end: runEnd(sql, i, /[0-9.]/) };
  return { kind: 'symbol', end: i + 1 };
}

/** The script's tokens, comments included, whitespace left out. */
export function lex(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    if (/\s/.test(sql[i] as string)) {
      i++;
      continue;
    }
    const { kind, end } = tokenAt(sql, i);
    tokens.push({ kind, text: sql.slice(i, end), start: i });
    i = end;
  }
  return tokens;
}

export interface Statement {
  /** The source text, without the `;` that ends it. */
  text: string;
  /** Its tokens without comments. */
  tokens: Token[];
}

export interface SplitScript {
  statements: Statement[];
  /** Comments, strings, quoted names and dollar-quoted bodies holding a `;`. */
  hiddenSemicolons: Token[];
}

/** Splits a script on `;` outside comments, strings, quoted names and dollar quotes. */
export function splitStatements(sql: string): SplitScript {
  const statements: Statement[] = [];
  const hiddenSemicolons: Token[] = [];
  let current: Token[] = [];
  const close = (end: number) => {
    const first = current[0];
    if (first) statements.push({ text: sql.slice(first.start, end).trim(), tokens: current });
    current = [];
  };
  for (const token of lex(sql)) {
    if (token.kind === 'symbol' && token.text === ';') close(token.start);
    else {
      if (token.kind !== 'symbol' && token.kind !== 'word' && token.text.includes(';')) hiddenSemicolons.push(token);
      if (token.kind !== 'comment') current.push(token);
    }
  }
  close(sql.length);
  return { statements, hiddenSemicolons };
}

// --- Reading statements ---------------------------------------------------------------------

const upper = (token: Token | undefined) => (token?.kind === 'word' ? token.text.toUpperCase() : '');

/** A name as PostgreSQL sees it: unquoted names fold to lower case. */
function nameOf(token: Token | undefined): string {
  if (!token) return '';
  if (token.kind === 'quoted-name') return token.text.slice(1, -1).replaceAll('""', '"');
  return token.text.toLowerCase();
}

const isName = (token: Token | undefined) => token?.kind === 'word' || token?.kind === 'quoted-name';

/** The words at `at` are `words`, in order. */
function wordsAt(tokens: Token[], at: number, ...words: string[]): boolean {
  return words.every((word, k) => upper(tokens[at + k]) === word);
}

function hasWords(tokens: Token[], ...words: string[]): boolean {
  return tokens.some((_, at) => wordsAt(tokens, at, ...words));
}

/** Index past the optional words at `at` (e.g. IF EXISTS). */
function skip(tokens: Token[], at: number, ...words: string[]): number {
  return wordsAt(tokens, at, ...words) ? at + words.length : at;
}

/** A possibly schema-qualified name at `at`: the object's own name and the index after it. */
function qualifiedName(tokens: Token[], at: number): { name: string; next: number } {
  let i = at;
  let name = nameOf(tokens[i]);
  while (tokens[i + 1]?.text === '.' && isName(tokens[i + 2])) {
    i += 2;
    name = nameOf(tokens[i]);
  }
  return { name, next: i + 1 };
}

/** Splits tokens on commas outside parentheses (the actions of an ALTER TABLE). */
function topLevelParts(tokens: Token[]): Token[][] {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (const token of tokens) {
    if (token.text === '(') depth++;
    if (token.text === ')') depth--;
    if (depth === 0 && token.kind === 'symbol' && token.text === ',') parts.push([]);
    else parts.at(-1)?.push(token);
  }
  return parts.filter((part) => part.length > 0);
}

// --- Classifying statements -----------------------------------------------------------------

/** A rule a statement breaks, unless everything it touches was created in the same migration. */
export interface Violation {
  rule: ContractRule;
  detail: string;
  /** Keys (`table:apps`, `index:apps_name_idx`) of what it touches. */
  touches: string[];
}

export interface Classified {
  violations: Violation[];
  /** The key of the object it creates. */
  creates?: string;
  ddl: boolean;
  concurrent: boolean;
  lockTimeout?: 'set' | 'local' | 'off';
}

const contractAdvice = 'a contract step; mark it `_contract_` and `-- contract: safe after release <N>`, or keep the';

const violation = (rule: ContractRule, detail: string, touches: string[]): Violation => ({ rule, detail, touches });

function dropped(what: string, noun: string, touches: string[]): Violation {
  return violation('drop', `${what}: ${contractAdvice} ${noun} until the release after next`, touches);
}

function renamed(what: string, touches: string[]): Violation {
  return violation(
    'rename',
    `${what}: the previous release still uses the old name; add the new one beside it (both written) and drop the old one in a contract step (\`_contract_\`, \`-- contract: safe after release <N>\`)`,
    touches,
  );
}

function alterColumn(action: Token[], table: string, at: number): Violation[] {
  const column = nameOf(action[at]);
  const rest = at + 1;
  const where = `${table}.${column}`;
  const touches = [`table:${table}`];
  if (wordsAt(action, rest, 'TYPE') || wordsAt(action, rest, 'SET', 'DATA', 'TYPE')) {
    return [
      violation(
        'column-type',
        `ALTER COLUMN ${where} TYPE: rewrites the table and changes what the previous release reads; add a column of the new type, backfill it, and drop the old one in a contract step`,
        touches,
      ),
    ];
  }
  if (wordsAt(action, rest, 'SET', 'NOT', 'NULL')) {
    return [
      violation(
        'set-not-null',
        `SET NOT NULL on ${where}: scans the table under an exclusive lock, and the previous release may still write nulls; add CHECK ("${column}" IS NOT NULL) NOT VALID now and VALIDATE it later, or make this a contract step`,
        touches,
      ),
    ];
  }
  const drop = ['DEFAULT', 'IDENTITY', 'EXPRESSION'].find((what) => wordsAt(action, rest, 'DROP', what));
  return drop ? [dropped(`DROP ${drop} of ${where}`, drop.toLowerCase(), touches)] : [];
}

function addColumn(action: Token[], table: string, at: number): Violation[] {
  const nameAt = skip(action, at, 'IF', 'NOT', 'EXISTS');
  const column = nameOf(action[nameAt]);
  const definition = action.slice(nameAt + 1);
  const notNull = hasWords(definition, 'NOT', 'NULL') || hasWords(definition, 'PRIMARY', 'KEY');
  const filled = hasWords(definition, 'DEFAULT') || hasWords(definition, 'GENERATED');
  if (!notNull || filled) return [];
  return [
    violation(
      'add-column-not-null',
      `ADD COLUMN ${table}.${column} NOT NULL without DEFAULT: fails on a table with rows, and the previous release does not write it; add it nullable or with a DEFAULT, and SET NOT NULL in a contract step`,
      [`table:${table}`],
    ),
  ];
}

function addConstraint(action: Token[], table: string, at: number): Violation[] {
  const named = upper(action[at]) === 'CONSTRAINT';
  const kindAt = named ? at + 2 : at;
  const name = named ? nameOf(action[at + 1]) : '(unnamed)';
  const kind = upper(action[kindAt]);
  const touches = [`table:${table}`];
  if (kind === 'CHECK' || kind === 'FOREIGN') {
    if (hasWords(action, 'NOT', 'VALID')) return [];
    return [
      violation(
        'constraint-not-valid',
        `ADD CONSTRAINT ${name} (${kind === 'CHECK' ? 'CHECK' : 'FOREIGN KEY'}) on ${table} without NOT VALID: checks every row under a lock that blocks writes; add it NOT VALID, then VALIDATE CONSTRAINT ${name} in a later migration`,
        touches,
      ),
    ];
  }
  const afterKind = kindAt + (kind === 'PRIMARY' ? 2 : 1);
  if ((kind === 'UNIQUE' || kind === 'PRIMARY') && wordsAt(action, afterKind, 'USING', 'INDEX')) return [];
  const label = kind === 'PRIMARY' ? 'PRIMARY KEY' : kind;
  return [
    violation(
      'constraint-not-valid',
      `ADD CONSTRAINT ${name} (${label}) on ${table}: builds its index under a lock that blocks reads and writes; CREATE UNIQUE INDEX CONCURRENTLY in a migration of its own, then ADD CONSTRAINT ${name} ${label} USING INDEX`,
      touches,
    ),
  ];
}

const constraintKinds = new Set(['CONSTRAINT', 'CHECK', 'FOREIGN', 'UNIQUE', 'PRIMARY', 'EXCLUDE']);

function alterTableAction(action: Token[], table: string): Violation[] {
  const verb = upper(action[0]);
  const touches = [`table:${table}`];
  if (verb === 'ADD') {
    if (constraintKinds.has(upper(action[1]))) return addConstraint(action, table, 1);
    return addColumn(action, table, skip(action, 1, 'COLUMN'));
  }
  if (verb === 'DROP') {
    if (upper(action[1]) === 'CONSTRAINT') {
      const name = nameOf(action[skip(action, 2, 'IF', 'EXISTS')]);
      return [dropped(`DROP CONSTRAINT ${table}.${name}`, 'constraint', touches)];
    }
    const name = nameOf(action[skip(action, skip(action, 1, 'COLUMN'), 'IF', 'EXISTS')]);
    return [dropped(`DROP COLUMN ${table}.${name}`, 'column', touches)];
  }
  if (verb === 'ALTER') return alterColumn(action, table, skip(action, 1, 'COLUMN'));
  if (verb === 'RENAME') {
    if (upper(action[1]) === 'TO') return [renamed(`RENAME TABLE ${table} TO ${nameOf(action[2])}`, touches)];
    const kind = upper(action[1]) === 'CONSTRAINT' ? 'CONSTRAINT' : 'COLUMN';
    return [renamed(`RENAME ${kind} ${table}.${nameOf(action.at(-3))} TO ${nameOf(action.at(-1))}`, touches)];
  }
  if (wordsAt(action, 0, 'SET', 'SCHEMA')) return [renamed(`SET SCHEMA of ${table}`, touches)];
  return [];
}

function alterTable(tokens: Token[]): Classified {
  const at = skip(tokens, skip(tokens, 2, 'IF', 'EXISTS'), 'ONLY');
  const { name: table, next } = qualifiedName(tokens, at);
  const rest = tokens.slice(tokens[next]?.text === '*' ? next + 1 : next);
  return {
    violations: topLevelParts(rest).flatMap((action) => alterTableAction(action, table)),
    ddl: true,
    // DETACH PARTITION … CONCURRENTLY
    concurrent: hasWords(rest, 'CONCURRENTLY'),
  };
}

function alterType(tokens: Token[]): Classified {
  const { name, next } = qualifiedName(tokens, 2);
  const touches = [`type:${name}`];
  const classified = (violations: Violation[]): Classified => ({ violations, ddl: true, concurrent: false });
  if (upper(tokens[next]) === 'RENAME' || wordsAt(tokens, next, 'SET', 'SCHEMA')) {
    return classified([renamed(`ALTER TYPE ${name} ${upper(tokens[next])} ${upper(tokens[next + 1])}`, touches)]);
  }
  if (wordsAt(tokens, next, 'DROP', 'ATTRIBUTE')) {
    return classified([dropped(`DROP ATTRIBUTE of type ${name}`, 'attribute', touches)]);
  }
  if (wordsAt(tokens, next, 'ALTER', 'ATTRIBUTE') && hasWords(tokens, 'TYPE')) {
    return classified([
      violation(
        'column-type',
        `ALTER ATTRIBUTE … TYPE of type ${name}: changes what the previous release reads; add an attribute and drop the old one in a contract step`,
        touches,
      ),
    ]);
  }
  return classified([]); // ADD VALUE: an expand step
}

function alter(tokens: Token[]): Classified {
  const object = upper(tokens[1]);
  if (object === 'TABLE') return alterTable(tokens);
  if (object === 'TYPE') return alterType(tokens);
  const { name } = qualifiedName(tokens, skip(tokens, 2, 'IF', 'EXISTS'));
  const renames = hasWords(tokens, 'RENAME') || hasWords(tokens, 'SET', 'SCHEMA');
  const touches = [`${object.toLowerCase()}:${name}`];
  return {
    violations: renames ? [renamed(`ALTER ${object} ${name} RENAME`, touches)] : [],
    ddl: true,
    concurrent: hasWords(tokens, 'CONCURRENTLY'),
  };
}

const createModifiers = new Set([
  'OR',
  'REPLACE',
  'GLOBAL',
  'LOCAL',
  'TEMP',
  'TEMPORARY',
  'UNLOGGED',
  'UNIQUE',
  'MATERIALIZED',
]);

function createIndex(tokens: Token[], at: number): Classified {
  const concurrent = upper(tokens[at + 1]) === 'CONCURRENTLY';
  const on = tokens.findIndex((token) => upper(token) === 'ON');
  const nameAt = skip(tokens, concurrent ? at + 2 : at + 1, 'IF', 'NOT', 'EXISTS');
  const index = nameAt < on ? qualifiedName(tokens, nameAt).name : '';
  const { name: table } = qualifiedName(tokens, skip(tokens, on + 1, 'ONLY'));
  const violations = concurrent
    ? []
    : [
        violation(
          'index-not-concurrent',
          `CREATE INDEX ${index || '(unnamed)'} ON ${table} without CONCURRENTLY: blocks writes to ${table} while it builds; write CREATE INDEX CONCURRENTLY, as the only statement of a migration of its own`,
          [`table:${table}`],
        ),
      ];
  return { violations, ddl: true, concurrent, ...(index ? { creates: `index:${index}` } : {}) };
}

function create(tokens: Token[]): Classified {
  let at = 1;
  while (createModifiers.has(upper(tokens[at]))) at++;
  const object = upper(tokens[at]);
  if (object === 'INDEX') return createIndex(tokens, at);
  const { name } = qualifiedName(tokens, skip(tokens, at + 1, 'IF', 'NOT', 'EXISTS'));
  return { violations: [], ddl: true, concurrent: false, creates: `${object.toLowerCase()}:${name}` };
}

function drop(tokens: Token[]): Classified {
  const materialized = upper(tokens[1]) === 'MATERIALIZED';
  const object = materialized ? 'MATERIALIZED VIEW' : upper(tokens[1]);
  const concurrentAt = materialized ? 3 : 2;
  const concurrent = upper(tokens[concurrentAt]) === 'CONCURRENTLY';
  let at = skip(tokens, concurrent ? concurrentAt + 1 : concurrentAt, 'IF', 'EXISTS');
  const names: string[] = [];
  while (isName(tokens[at])) {
    const { name, next } = qualifiedName(tokens, at);
    names.push(name);
    if (tokens[next]?.text !== ',') break;
    at = next + 1;
  }
  // The keys create() gives what it creates.
  const key = materialized ? 'view' : object.toLowerCase();
  const touches = names.map((name) => `${key}:${name}`);
  return {
    violations: [dropped(`DROP ${object} ${names.join(', ')}`, object.toLowerCase(), touches)],
    ddl: true,
    concurrent,
  };
}

function truncate(tokens: Token[]): Classified {
  const at = skip(tokens, skip(tokens, 1, 'TABLE'), 'ONLY');
  const { name } = qualifiedName(tokens, at);
  return { violations: [dropped(`TRUNCATE ${name}`, 'rows', [`table:${name}`])], ddl: true, concurrent: false };
}

// SET [SESSION | LOCAL] lock_timeout { = | TO } value
function setting(tokens: Token[]): Classified {
  const local = upper(tokens[1]) === 'LOCAL';
  const at = skip(tokens, skip(tokens, 1, 'SESSION'), 'LOCAL');
  if (nameOf(tokens[at]) !== 'lock_timeout') return { violations: [], ddl: false, concurrent: false };
  const value = tokens[at + 2];
  const text = value?.kind === 'string' ? value.text.slice(1, -1) : (value?.text ?? '');
  const off = /^\s*0*(\.0*)?\s*[a-z]*\s*$/i.test(text) || upper(value) === 'DEFAULT';
  return { violations: [], ddl: false, concurrent: false, lockTimeout: local ? 'local' : off ? 'off' : 'set' };
}

const otherDdl = new Set(['COMMENT', 'REINDEX', 'LOCK', 'GRANT', 'REVOKE', 'CLUSTER', 'VACUUM']);

/** What one statement does, as far as the policy cares. */
export function classify(statement: Statement): Classified {
  const { tokens } = statement;
  switch (upper(tokens[0])) {
    case 'CREATE':
      return create(tokens);
    case 'ALTER':
      return alter(tokens);
    case 'DROP':
      return drop(tokens);
    case 'TRUNCATE':
      return truncate(tokens);
    case 'SET':
      return setting(tokens);
    default:
      return { violations: [], ddl: otherDdl.has(upper(tokens[0])), concurrent: hasWords(tokens, 'CONCURRENTLY') };
  }
}

// --- Checking migrations --------------------------------------------------------------------

const markLine = /^--\s*contract:\s*safe after release(?:\s+(.*))?$/i;

/** The statement on one line, cut short when long. */
function oneLine(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 140 ? `${line.slice(0, 139)}…` : line;
}

/** Whether the migration is a contract step, and what is wrong with its marks. */
export function contractMark(name: string, sql: string): { contract: boolean; problems: string[] } {
  const firstLine =
    sql
      .replace(/^\uFEFF/, '')
      .split(/\r?\n/, 1)[0]
      ?.trim() ?? '';
  const mark = markLine.exec(firstLine);
  const named = isContractStep(name);
  const release = mark?.[1]?.trim() ?? '';
  if (!mark && /^--\s*contract\b/i.test(firstLine)) {
    return {
      contract: false,
      problems: [`malformed contract mark "${firstLine}": write \`-- contract: safe after release <release>\``],
    };
  }
  if (named && !mark) {
    return {
      contract: false,
      problems: [
        'named a contract step (`_contract_`) but its first line is not `-- contract: safe after release <release>`: add that line naming the release after which it is safe, or drop `_contract_` from the name',
      ],
    };
  }
  if (mark && !named) {
    return {
      contract: false,
      problems: [
        'its first line marks a contract step but its name lacks `_contract_` right after the timestamp (readiness tells contract steps by name): rename it `<timestamp>_contract_<name>`, or remove the mark',
      ],
    };
  }
  if (mark && release === '') {
    return {
      contract: false,
      problems: ['the contract mark names no release: `-- contract: safe after release <release>`'],
    };
  }
  return { contract: named, problems: [] };
}

function hiddenSemicolonFinding(migration: string, token: Token): Finding {
  const where = {
    comment: 'a comment',
    string: 'a string or dollar-quoted body',
    'quoted-name': 'a quoted name',
  }[token.kind as 'comment' | 'string' | 'quoted-name'];
  return {
    migration,
    statement: oneLine(token.text),
    rule: 'semicolon',
    detail: `a \`;\` inside ${where}: the pg driver adapter splits migrations on every \`;\`, so PostgreSQL would get broken statements; write it without the \`;\``,
  };
}

/** A CONCURRENTLY statement alone in its migration: anything beside it fails on PGlite. */
function concurrencyFindings(migration: string, statements: Statement[], classified: Classified[]): Finding[] {
  if (statements.length < 2) return [];
  return statements
    .filter((_, k) => classified[k]?.concurrent)
    .map((statement) => ({
      migration,
      statement: oneLine(statement.text),
      rule: 'concurrently-alone' as const,
      detail:
        "CONCURRENTLY must be its migration's only statement: PGlite runs a migration as one transaction, where PostgreSQL refuses it; move it to a migration of its own, without SET lock_timeout (bound the wait with DATABASE_URL's options=-c lock_timeout=…)",
    }));
}

function lockTimeoutFinding(migration: string, statements: Statement[], classified: Classified[]): Finding[] {
  const firstDdl = classified.findIndex((c) => c.ddl);
  if (firstDdl === -1) return [];
  if (statements.length === 1 && classified[0]?.concurrent) return [];
  const last = classified
    .slice(0, firstDdl)
    .map((c) => c.lockTimeout)
    .filter((setting) => setting !== undefined)
    .at(-1);
  if (last === 'set') return [];
  const why =
    last === 'local'
      ? 'SET LOCAL lock_timeout has no effect: on PostgreSQL each statement runs in a transaction of its own; write SET lock_timeout'
      : last === 'off'
        ? 'lock_timeout is set to 0 (no limit) before the first DDL statement'
        : 'no SET lock_timeout before the first DDL statement';
  return [
    {
      migration,
      statement: oneLine(statements[firstDdl]?.text ?? ''),
      rule: 'lock-timeout',
      detail: `${why}: a DDL statement waiting for its lock queues every query on the table behind it; start the migration with SET lock_timeout = '5s';`,
    },
  ];
}

/** The policy's findings for one migration (not grandfathered). */
export function checkMigration(migration: string, sql: string): Finding[] {
  const mark = contractMark(migration, sql);
  const findings: Finding[] = mark.problems.map((detail) => ({
    migration,
    statement: '',
    rule: 'contract-mark',
    detail,
  }));
  const { statements, hiddenSemicolons } = splitStatements(sql);
  findings.push(...hiddenSemicolons.map((token) => hiddenSemicolonFinding(migration, token)));
  const created = new Set<string>();
  const classified = statements.map((statement) => {
    const result = classify(statement);
    for (const broken of result.violations) {
      const fresh = broken.touches.length > 0 && broken.touches.every((key) => created.has(key));
      if (!fresh && !mark.contract) {
        findings.push({ migration, statement: oneLine(statement.text), rule: broken.rule, detail: broken.detail });
      }
    }
    if (result.creates) created.add(result.creates);
    return result;
  });
  findings.push(...concurrencyFindings(migration, statements, classified));
  findings.push(...lockTimeoutFinding(migration, statements, classified));
  return findings;
}

/** Checks every migration not in `grandfathered`. */
export function checkMigrations(
  migrations: MigrationSource[],
  grandfathered: readonly string[] = grandfatheredMigrations,
): PolicyReport {
  const skipped = new Set(grandfathered);
  const report: PolicyReport = { checked: 0, grandfathered: 0, findings: [] };
  for (const { name, sql } of migrations) {
    if (skipped.has(name)) {
      report.grandfathered++;
      continue;
    }
    report.checked++;
    if (sql === null) {
      report.findings.push({
        migration: name,
        statement: '',
        rule: 'no-sql',
        detail: 'the directory has no migration.sql',
      });
    } else report.findings.push(...checkMigration(name, sql));
  }
  return report;
}

/** One finding on one line. */
export function formatFinding(finding: Finding): string {
  const statement = finding.statement ? `  [${finding.statement}]` : '';
  return `${finding.migration}: ${finding.rule}: ${finding.detail}${statement}`;
}

const count = (n: number, noun: string) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** `N migrations checked, M grandfathered, K findings`. */
export function formatSummary(report: PolicyReport): string {
  return `${count(report.checked, 'migration')} checked, ${report.grandfathered} grandfathered, ${count(report.findings.length, 'finding')}`;
}
