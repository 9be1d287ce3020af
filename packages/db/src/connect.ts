// One PrismaClient over either real PostgreSQL (DATABASE_URL, through node-postgres) or
// PGlite, PostgreSQL compiled to WASM, in this process (the embedded default).
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/client.ts';

export interface Database {
  prisma: PrismaClient;
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
    const adapter = new PrismaPg(
      { connectionString: options.databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 3000 },
      // A dropped connection must fail the query it serves, not crash the process.
      { onPoolError: () => {}, onConnectionError: () => {} },
    );
    const prisma = new PrismaClient({ adapter });
    return { prisma, adapter, kind: 'postgresql', close: () => prisma.$disconnect() };
  }
  if (options.pgliteDir) mkdirSync(options.pgliteDir, { recursive: true });
  const pglite = options.pgliteDir ? new PGlite(options.pgliteDir) : new PGlite();
  await pglite.waitReady;
  const adapter = new PrismaPGlite(pglite);
  // PGlite runs one transaction at a time: let queued transactions wait rather than fail.
  const prisma = new PrismaClient({ adapter, transactionOptions: { maxWait: 10_000, timeout: 10_000 } });
  return {
    prisma,
    adapter,
    kind: 'pglite',
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}
