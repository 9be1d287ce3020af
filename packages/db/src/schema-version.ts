// Readiness asks whether the database's schema is the one this build expects: the migrations
// applied there, exactly the ones in prisma/migrations. An older schema lacks some (run
// db:migrate); a newer one has some this build does not know (a newer release migrated it).
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import type { Query } from './connect.ts';
import { migrationsDir } from './migrations.ts';

async function expectedMigrations(baseDir: string): Promise<string[]> {
  if (!existsSync(baseDir)) return [];
  const entries = await readdir(baseDir, { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

/** Why the database's schema is not this build's, or null when it is. */
export async function schemaVersionProblem(query: Query, baseDir = migrationsDir): Promise<string | null> {
  const expected = await expectedMigrations(baseDir);
  let rows: { migration_name: string }[];
  try {
    rows = await query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      [],
    );
  } catch (error) {
    // undefined_table: no migration was ever applied here.
    if ((error as { code?: unknown }).code === '42P01')
      return 'older schema than this build: no migrations applied (run db:migrate)';
    throw error;
  }
  const applied = new Set(rows.map((row) => row.migration_name));
  const unknown = [...applied].filter((name) => !expected.includes(name)).sort();
  if (unknown.length) return `newer schema than this build: unknown migrations ${unknown.join(', ')}`;
  const pending = expected.filter((name) => !applied.has(name)).sort();
  if (pending.length) return `older schema than this build: pending migrations ${pending.join(', ')} (run db:migrate)`;
  return null;
}
