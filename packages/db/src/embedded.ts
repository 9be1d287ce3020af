import { join } from 'node:path';
import { type Database, openDatabase } from './connect.ts';
import { applyMigrations } from './migrations.ts';
import { seedRegistry } from './seed.ts';

/**
 * The embedded default: PGlite under dataDir (or in memory), migrated on open, and the sample
 * city registry loaded the first time the database is created.
 */
export async function prepareEmbeddedDatabase(dataDir: string | null): Promise<Database> {
  const database = await openDatabase({ databaseUrl: null, pgliteDir: dataDir && join(dataDir, 'pglite') });
  const applied = await applyMigrations(database.adapter);
  if (applied.length > 0 && (await database.prisma.city.count()) === 0) await seedRegistry(database.prisma);
  return database;
}
