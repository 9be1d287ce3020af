// pnpm db:migrate: applies pending migrations to DATABASE_URL (or to the embedded PGlite under
// DATA_DIR when DATABASE_URL is unset). Safe to run again: applied migrations are skipped.
//
// A migration's statements may run for minutes on a real-sized table (an index built
// CONCURRENTLY, a backfill), far past DATABASE_TIMEOUT_MS, which bounds the services' calls. So
// the server must first answer within that bound, and then each statement gets up to
// migrationStatementMs; a statement's wait for a lock is bounded by the migration's own
// lock_timeout (docs/releasing.md).
import { join } from 'node:path';
import { loadConfigOrExit, loadStoreSettings } from '@devplat/config';
import { applyMigrations, openDatabase } from '../src/index.ts';

const migrationStatementMs = 30 * 60_000;

const config = loadConfigOrExit(process.env, loadStoreSettings);
const where = { databaseUrl: config.databaseUrl, pgliteDir: join(config.dataDir, 'pglite') };
if (config.databaseUrl) {
  const probe = await openDatabase({ ...where, timeoutMs: config.databaseTimeoutMs, poolSize: 1 });
  try {
    await probe.query('SELECT 1', []);
  } catch (error) {
    console.error(`migration failed: ${(error as Error).message}`);
    process.exit(1);
  } finally {
    await probe.close().catch(() => {});
  }
}
const database = await openDatabase({ ...where, timeoutMs: migrationStatementMs });
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
