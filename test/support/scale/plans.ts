// What PostgreSQL does with the hot reads: each read runs once with its statements recorded (Prisma's
// query events, and the hot paths' own driver calls), then each statement is EXPLAINed with the
// values it was sent, and its plan is searched for full scans of the platform's big tables and for
// walks down an index that filter rows the index does not bound.
import { setImmediate } from 'node:timers/promises';
import { type Database, PrismaClient, type Query } from '@devplat/db';
import type { HotRead } from './hot-reads.ts';
import { seededTables } from './measure.ts';
import type { Subjects } from './subjects.ts';

export interface Statement {
  sql: string;
  params: unknown[];
}

interface Capture {
  prisma: PrismaClient;
  query: Query;
  /** The statements sent since the last call. */
  take(): Statement[];
  close(): Promise<void>;
}

/** A client on the database's own adapter that logs every statement, and a driver query that does. */
function capture(database: Database): Capture {
  let sent: Statement[] = [];
  const prisma = new PrismaClient({ adapter: database.adapter, log: [{ emit: 'event', level: 'query' }] });
  prisma.$on('query', (event) => {
    sent.push({ sql: event.query, params: JSON.parse(event.params) as unknown[] });
  });
  const query = Object.assign(
    <Row>(sql: string, params: unknown[]) => {
      sent.push({ sql, params });
      return database.query<Row>(sql, params);
    },
    { timeoutMs: database.query.timeoutMs },
  );
  return {
    prisma,
    query,
    take: () => {
      const taken = sent;
      sent = [];
      return taken;
    },
    close: () => prisma.$disconnect(),
  };
}

export interface ReadStatements {
  read: HotRead;
  statements: Statement[];
}

/**
 * Runs each read once and returns the statements it sent. The database's own Prisma client must not
 * be used afterwards: closing the logging client ends the connection pool they share.
 */
export async function hotStatements(
  database: Database,
  reads: readonly HotRead[],
  subjects: Subjects,
): Promise<ReadStatements[]> {
  const recorder = capture(database);
  try {
    const found: ReadStatements[] = [];
    for (const read of reads) {
      await read.run(recorder, subjects);
      // Prisma emits its query events after the call resolves.
      await setImmediate();
      found.push({ read, statements: recorder.take() });
    }
    return found;
  } finally {
    await recorder.close();
  }
}

export interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

export interface Explained {
  plan: PlanNode;
  /** With `analyze`: the statement's time in PostgreSQL. */
  executionMs?: number;
}

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** A parameter as a literal: what PostgreSQL plans with once it has the values. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return quoted(value.toISOString());
  if (Array.isArray(value)) {
    const element = (item: unknown) => (item === null ? 'NULL' : `"${String(item).replace(/["\\]/g, '\\$&')}"`);
    return quoted(`{${value.map(element).join(',')}}`);
  }
  return quoted(String(value));
}

/**
 * The statement with its parameters written in, as literals: Prisma's statements are unnamed, so
 * PostgreSQL plans each with its values (a custom plan), as it plans this text.
 */
export const withValues = ({ sql, params }: Statement): string =>
  sql.replace(/\$(\d+)/g, (_, n: string) => literal(params[Number(n) - 1]));

export async function explain(query: Query, statement: Statement, analyze = false): Promise<Explained> {
  const options = analyze ? 'ANALYZE, BUFFERS, FORMAT JSON' : 'FORMAT JSON';
  const [row] = await query<Record<string, unknown>>(`EXPLAIN (${options}) ${withValues(statement)}`, []);
  const value = Object.values(row ?? {})[0];
  const [explained] = (typeof value === 'string' ? JSON.parse(value) : value) as {
    Plan: PlanNode;
    'Execution Time'?: number;
  }[];
  if (!explained) throw new Error(`no plan for ${statement.sql}`);
  return { plan: explained.Plan, executionMs: explained['Execution Time'] };
}

function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan;
  for (const child of plan.Plans ?? []) yield* nodes(child);
}

const bigTables: ReadonlySet<string> = new Set(seededTables);
const onBigTable = (node: PlanNode) => bigTables.has(node['Relation Name'] ?? '');

/** The big tables the plan reads whole. */
export const fullScans = (plan: PlanNode): string[] =>
  [...nodes(plan)]
    .filter((node) => node['Node Type'] === 'Seq Scan' && onBigTable(node))
    .map((node) => node['Relation Name'] as string);

/**
 * The big tables the plan walks from one end of an index, skipping the rows a filter refuses: as
 * many rows as it takes to find a page, all of them when none matches.
 */
export const filteredWalks = (plan: PlanNode): string[] =>
  [...nodes(plan)]
    .filter((node) => /^Index (Only )?Scan$/.test(node['Node Type']) && onBigTable(node))
    .filter((node) => node.Filter !== undefined && node['Index Cond'] === undefined)
    .map((node) => `${node['Relation Name']} (${node['Index Name']})`);

/** How the plan reaches each table: "Index Scan apps_client_id_key", "Seq Scan cities", … */
export const accessPaths = (plan: PlanNode): string[] => [
  ...new Set(
    [...nodes(plan)]
      .filter((node) => node['Relation Name'] || node['Index Name'])
      .map((node) => `${node['Node Type']} ${node['Index Name'] ?? node['Relation Name']}`),
  ),
];
