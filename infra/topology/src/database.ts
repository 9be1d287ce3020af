// The topology's own database on the machine's PostgreSQL: created when missing, migrated and
// seeded with the sample registry by the project's own scripts, as a deployment's Job would.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';
import { repoRoot } from './replica.ts';

/** DATABASE_URL with another database name. */
export function databaseUrlFor(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.href;
}

export async function prepareDatabase(serverUrl: string, database: string): Promise<string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error(`not a plain database name: ${database}`);
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount === 0) await admin.query(`CREATE DATABASE ${database}`);
  } finally {
    await admin.end();
  }
  const url = databaseUrlFor(serverUrl, database);
  // Not spawnSync: the server may be reached through a proxy in this very process (the soak's).
  for (const script of [
    'packages/2-infrastructure/db/scripts/migrate.ts',
    'packages/3-domain/domain/scripts/seed-registry.ts',
  ]) {
    await promisify(execFile)(process.execPath, [script], {
      cwd: repoRoot,
      env: { ...process.env, DATABASE_URL: url },
      encoding: 'utf8',
    }).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`${script} failed:\n${error.stdout ?? ''}${error.stderr ?? ''}`);
    });
  }
  return url;
}

export async function dropDatabase(serverUrl: string, database: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}
