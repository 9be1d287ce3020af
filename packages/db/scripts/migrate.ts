// pnpm db:migrate: applies pending migrations to DATABASE_URL (or to the embedded PGlite under
// DATA_DIR when DATABASE_URL is unset). Safe to run again: applied migrations are skipped.
import { join } from 'node:path';
import { loadConfigOrExit, loadStoreSettings } from '@devplat/config';
import { applyMigrations, openDatabase } from '../src/index.ts';

const config = loadConfigOrExit(process.env, loadStoreSettings);
const database = await openDatabase({ databaseUrl: config.databaseUrl, pgliteDir: join(config.dataDir, 'pglite') });
try {
  const applied = await applyMigrations(database.adapter);
  console.log(applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
} catch (error) {
  console.error(`migration failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  await database.close();
}
// The WASM schema engine leaves a timer running.
process.exit();
