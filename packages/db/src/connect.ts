// One PrismaClient over either real PostgreSQL (DATABASE_URL, through node-postgres) or
// PGlite, PostgreSQL compiled to WASM, in this process (the embedded default).
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { failingClosed, postgresFailure } from './failures.ts';
import { PrismaClient } from './generated/client.ts';

/** One SQL statement with positional parameters ($1, $2, ...), for the few hot paths. */
export type Query = <Row>(text: string, values: unknown[]) => Promise<Row[]>;

export interface Database {
  prisma: PrismaClient;
  /**
   * Plain SQL straight to the driver (node-postgres or PGlite). Prisma owns the schema and every
   * other query; a per-request check takes a fifth of the CPU this way (measured, see README).
   */
  query: Query;
  /** The adapter the client runs on; the migration engine uses it too. */
  adapter: SqlMigrationAwareDriverAdapterFactory;
  kind: 'postgresql' | 'pglite';
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** A postgres:// URL; null selects the embedded PGlite. */
  databaseUrl: string | null;
  /** Where PGlite keeps its files; null keeps it in memory (tests). */
  pgliteDir?: string | null;
  /** node-postgres pool size for a real server. */
  poolSize?: number;
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.databaseUrl !== null) {
    const adapter = failingClosed(
      new PrismaPg(
        { connectionString: options.databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 3000 },
        // A dropped connection must fail the query it serves, not crash the process.
        { onPoolError: () => {}, onConnectionError: () => {} },
      ),
    );
    const prisma = new PrismaClient({ adapter });
    const pool = new pg.Pool({
      connectionString: options.databaseUrl,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 3000,
      // The hot statements take arrays (a batch of tokens) and their plans do not depend on the
      // values, yet PostgreSQL priced the generic plan above a custom one and planned every call
      // anew: 0.9 ms of planning against 0.2 ms of execution (measured, see README → Benchmarks).
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
    const query: Query = async <Row>(text: string, values: unknown[]) => {
      try {
        return (await pool.query({ name: nameOf(text), text, values })).rows as Row[];
      } catch (error) {
        throw postgresFailure(error);
      }
    };
    return {
      prisma,
      query,
      adapter,
      kind: 'postgresql',
      close: async () => {
        await Promise.all([prisma.$disconnect(), pool.end()]);
      },
    };
  }
  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  const pglite = options.pgliteDir ? new PGlite(options.pgliteDir) : new PGlite();
  await pglite.waitReady;
  const adapter = new PrismaPGlite(pglite);
  // PGlite runs one transaction at a time: let queued transactions wait rather than fail.
  const prisma = new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 10_000 } });
  return {
    prisma,
    query: async <Row>(text: string, values: unknown[]) => (await pglite.query<Row>(text, values)).rows,
    adapter,
    kind: 'pglite',
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
