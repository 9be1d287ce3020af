// A fresh, migrated and seeded database for one test file: on the PostgreSQL server of
// DATABASE_URL when it is set (CI), a copy of the template migrated and seeded once
// (database-template.ts); an in-memory PGlite otherwise, migrated here.
import { randomBytes } from 'node:crypto';
import { applyMigrations, type Database, openDatabase } from '@devplat/db';
import { seedRegistry } from '@devplat/domain/registry';
import { databaseUrlFor, dropDatabase } from '@devplat/topology/database';
import { ensureTemplates, onServer, templateNames, whenUnused } from './database-template.ts';

export interface TestDatabase extends Database {
  /** The URL of this test's own database, or null on PGlite. */
  url: string | null;
  drop(): Promise<void>;
}

export const realPostgresUrl = process.env.DATABASE_URL?.trim() || null;

/** invalid_catalog_name: the template was dropped since (another checkout's contents made theirs). */
const noSuchDatabase = '3D000';

/** The templates, checked once per process; again only when a copy finds one gone. */
let templatesReady: Promise<void> | undefined;

async function copyOfTemplate(serverUrl: string, seeded: boolean): Promise<string> {
  const name = `devplat_test_${randomBytes(6).toString('hex')}`;
  const names = await templateNames();
  const copy = () =>
    onServer(serverUrl, (client) =>
      whenUnused(client, `CREATE DATABASE ${name} TEMPLATE ${seeded ? names.seeded : names.bare}`),
    );
  templatesReady ??= ensureTemplates(serverUrl);
  await templatesReady;
  try {
    await copy();
  } catch (error) {
    if ((error as { code?: string }).code !== noSuchDatabase) throw error;
    templatesReady = ensureTemplates(serverUrl);
    await templatesReady;
    await copy();
  }
  return databaseUrlFor(serverUrl, name);
}

export async function createTestDatabase(options: { seed?: boolean } = {}): Promise<TestDatabase> {
  const seeded = options.seed !== false;
  const url = realPostgresUrl ? await copyOfTemplate(realPostgresUrl, seeded) : null;
  const database = await openDatabase({ databaseUrl: url, pgliteDir: null, poolSize: 4 });
  if (!url) {
    await applyMigrations(database.adapter);
    if (seeded) await seedRegistry(database.prisma);
  }
  return {
    ...database,
    url,
    drop: async () => {
      await database.close();
      if (url && realPostgresUrl) await dropDatabase(realPostgresUrl, new URL(url).pathname.slice(1));
    },
  };
}
