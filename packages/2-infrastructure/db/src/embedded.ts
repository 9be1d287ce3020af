import { join } from 'node:path';
import { type Database, openDatabase } from './connect.ts';
import { applyMigrations } from './migrations.ts';

/**
 * The embedded default: PGlite under dataDir (or in memory), migrated on open. `created` says the
 * database was new (its first migrations applied now): the caller loads the sample registry then.
 */
export async function prepareEmbeddedDatabase(
  dataDir: string | null,
): Promise<{ database: Database; created: boolean }> {
  const database = await openDatabase({ databaseUrl: null, pgliteDir: dataDir && join(dataDir, 'pglite') });
  const applied = await applyMigrations(database.adapter);
  return { database, created: applied.length > 0 };
}
