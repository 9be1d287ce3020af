// One PrismaClient over either real PostgreSQL (DATABASE_URL, through node-postgres) or
// PGlite, PostgreSQL compiled to WASM, in this process (the embedded default).
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { defaultTimeouts } from '@devplat/config';
import type { ServerTarget, Tracing } from '@devplat/tracing';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { wrapAdapter } from './adapter-proxy.ts';
import { failingClosedHooks, failingClosedTransactions, postgresFailure } from './failures.ts';
import { PrismaClient } from './generated/client.ts';
import { refusingUnstorable, refusingUnstorableHooks, unstorableArgument } from './guard.ts';

/** One SQL statement with positional parameters ($1, $2, ...), for the few hot paths. */
export interface Query {
  <Row>(text: string, values: unknown[]): Promise<Row[]>;
  /** The bound a call answers within, or fails with DependencyUnavailableError (DATABASE_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

export interface Database {
  prisma: PrismaClient;
  /**
   * Plain SQL straight to the driver (node-postgres or PGlite). Prisma owns the schema and every
   * other query; a per-request check takes a fifth of the CPU this way (measured, docs/benchmarks.md).
   */
  query: Query;
  /** The adapter the client runs on; the migration engine uses it too. */
  adapter: SqlMigrationAwareDriverAdapterFactory;
  kind: 'postgresql' | 'pglite';
  /** Each connection pool's size and waiters, for metrics (none for PGlite). */
  pools(): PoolStats[];
  close(): Promise<void>;
}

export interface PoolStats {
  /** prisma (the ORM's queries) or query (the plain SQL of the hot paths). */
  name: 'prisma' | 'query';
  total: number;
  idle: number;
  /** Calls waiting for a connection. */
  waiting: number;
  max: number;
}

function statsOf(name: PoolStats['name'], pool: pg.Pool, max: number): PoolStats {
  return { name, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max };
}

export interface DatabaseOptions {
  /** A postgres:// URL; null selects the embedded PGlite. */
  databaseUrl: string | null;
  /** Where PGlite keeps its files; null keeps it in memory (tests). */
  pgliteDir?: string | null;
  /** node-postgres pool size for a real server. */
  poolSize?: number;
  /** DATABASE_TIMEOUT_MS: the bound on a connection, a statement and a transaction's wait to start. */
  timeoutMs?: number;
  /** Spans for the statements of traced requests (a real server only; PGlite is in the process). */
  tracing?: Pick<Tracing, 'query' | 'prismaAdapter'>;
}

/** Where the server is, for spans: never the URL itself, which may carry a password. */
function serverOf(databaseUrl: string): ServerTarget {
  const url = new URL(databaseUrl);
  return {
    address: url.hostname.replace(/^\[|\]$/g, ''),
    port: Number(url.port) || 5432,
    namespace: decodeURIComponent(url.pathname.slice(1)) || undefined,
  };
}

/**
 * node-postgres settings that bound every call on a real server. `statement_timeout` stops a slow
 * statement on the server; only `query_timeout` (client side) ends a call to a server that accepted
 * the bytes and never answers, and `connectionTimeoutMillis` a connection attempt (or a wait for a
 * free connection of the pool) that never completes.
 */
function bounded(timeoutMs: number) {
  return { connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs, statement_timeout: timeoutMs };
}

const untraced: Pick<Tracing, 'query' | 'prismaAdapter'> = {
  query: (query) => query,
  prismaAdapter: (factory) => factory,
};

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const timeoutMs = options.timeoutMs ?? defaultTimeouts.databaseMs;
  const traced = options.tracing ?? untraced;
  if (options.databaseUrl !== null) {
    const max = options.poolSize ?? 10;
    const prismaPool = new pg.Pool({ connectionString: options.databaseUrl, max, ...bounded(timeoutMs) });
    prismaPool.on('error', () => {}); // a dropped idle connection fails the next query, not the process
    const server = serverOf(options.databaseUrl);
    // Each statement checked before it goes, each failure mapped on its way back: one wrapper.
    const adapter = wrapAdapter(
      // A dropped connection must fail the query it serves, not crash the process.
      traced.prismaAdapter(
        new PrismaPg(prismaPool, { onPoolError: () => {}, onConnectionError: () => {}, disposeExternalPool: true }),
        server,
      ),
      { ...refusingUnstorableHooks, ...failingClosedHooks },
    );
    // A transaction waits at most the bound for its connection; it is several statements, each
    // bounded, so the whole may take twice that before Prisma ends it.
    const prisma = failingClosedTransactions(
      new PrismaClient({ adapter, transactionOptions: { maxWait: timeoutMs, timeout: 2 * timeoutMs } }),
    );
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max,
      ...bounded(timeoutMs),
      // The hot statements take arrays (a batch of tokens) and their plans do not depend on the
      // values, yet PostgreSQL priced the generic plan above a custom one and planned every call
      // anew: 0.9 ms of planning against 0.2 ms of execution (measured, docs/benchmarks.md).
      options: '-c plan_cache_mode=force_generic_plan',
    });
    pool.on('error', () => {}); // a dropped idle connection fails the next query, not the process
    // Named statements are parsed and planned once per connection instead of on every call.
    const names = new Map<string, string>();
    const nameOf = (text: string) => {
      const known = names.get(text);
      if (known) return known;
      const name = `q_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
      names.set(text, name);
      return name;
    };
    const query = traced.query(async <Row>(text: string, values: unknown[]) => {
      const refused = unstorableArgument(values);
      if (refused) throw refused;
      try {
        return (await pool.query({ name: nameOf(text), text, values })).rows as Row[];
      } catch (error) {
        throw postgresFailure(error);
      }
    }, server);
    return {
      prisma,
      query: Object.assign(query, { timeoutMs }),
      adapter,
      kind: 'postgresql',
      pools: () => [statsOf('prisma', prismaPool, max), statsOf('query', pool, max)],
      close: async () => {
        await Promise.all([prisma.$disconnect(), pool.end()]);
        if (!prismaPool.ended) await prismaPool.end();
      },
    };
  }
  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  const pglite = options.pgliteDir ? new PGlite(options.pgliteDir) : new PGlite();
  await pglite.waitReady;
  const adapter = refusingUnstorable(new PrismaPGlite(pglite));
  // PGlite runs one transaction at a time: let queued transactions wait rather than fail.
  const prisma = failingClosedTransactions(
    new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 10_000 } }),
  );
  return {
    prisma,
    query: Object.assign(
      async <Row>(text: string, values: unknown[]) => {
        const refused = unstorableArgument(values);
        if (refused) throw refused;
        return (await pglite.query<Row>(text, values)).rows;
      },
      { timeoutMs },
    ),
    adapter,
    kind: 'pglite',
    pools: () => [],
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
