// A fresh, migrated and seeded database for one test file: a new database on the PostgreSQL
// server of DATABASE_URL when it is set (CI), an in-memory PGlite otherwise.
import { randomBytes } from 'node:crypto';
import { applyMigrations, type Database, openDatabase } from '@devplat/db';
import { seedRegistry } from '@devplat/domain/registry';
import pg from 'pg';

export interface TestDatabase extends Database {
  /** The URL of this test's own database, or null on PGlite. */
  url: string | null;
  drop(): Promise<void>;
}

export const realPostgresUrl = process.env.DATABASE_URL?.trim() || null;

async function admin<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function createTestDatabase(options: { seed?: boolean } = {}): Promise<TestDatabase> {
  let url: string | null = null;
  if (realPostgresUrl) {
    const name = `devplat_test_${randomBytes(6).toString('hex')}`;
    await admin(realPostgresUrl, (client) => client.query(`CREATE DATABASE ${name}`));
    const parsed = new URL(realPostgresUrl);
    parsed.pathname = `/${name}`;
    url = parsed.href;
  }
  const database = await openDatabase({ databaseUrl: url, pgliteDir: null, poolSize: 4 });
  await applyMigrations(database.adapter);
  if (options.seed !== false) await seedRegistry(database.prisma);
  return {
    ...database,
    url,
    drop: async () => {
      await database.close();
      if (url && realPostgresUrl) {
        const name = new URL(url).pathname.slice(1);
        await admin(realPostgresUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      }
    },
  };
}
