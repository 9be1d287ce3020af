// Readiness asks whether this build can run on the database's schema. The migrations applied there
// are compared with the ones in prisma/migrations:
// - exactly this build's: ready;
// - this build's and newer ones that only add (expand steps): ready, and said so. A rolling release
//   migrates before it replaces replicas, so the previous release keeps serving, and a rollback after
//   an expand migration can become ready;
// - a newer contract step (its name `<timestamp>_contract_…`, docs/releasing.md): not ready, since
//   it removed or changed something this build may still read;
// - an older schema (a migration of this build not applied): not ready (run db:migrate).
// The kind travels in the migration's name, which _prisma_migrations keeps, so a build that has
// never seen a migration can still tell an expand step from a contract step.
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import type { Query } from './connect.ts';
import { migrationsDir } from './migrations.ts';

/** A contract step's directory name: the 14-digit timestamp, then `_contract_`. */
export const contractStepName = /^\d{14}_contract_/;

export const isContractStep = (migrationName: string) => contractStepName.test(migrationName);

export type SchemaState =
  | { kind: 'this-build' }
  | { kind: 'newer-expand'; unknown: string[] }
  | { kind: 'newer-contract'; contract: string[] }
  /** pending is empty when no migration was ever applied (there is no _prisma_migrations). */
  | { kind: 'older'; pending: string[] };

async function expectedMigrations(baseDir: string): Promise<string[]> {
  if (!existsSync(baseDir)) return [];
  const entries = await readdir(baseDir, { withFileTypes: true });
  return entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
}

/** How the database's schema stands to this build's. */
export async function schemaState(query: Query, baseDir = migrationsDir): Promise<SchemaState> {
  const expected = await expectedMigrations(baseDir);
  let rows: { migration_name: string }[];
  try {
    rows = await query<{ migration_name: string }>(
      'SELECT migration_name FROM _prisma_migrations WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL',
      [],
    );
  } catch (error) {
    // undefined_table: no migration was ever applied here.
    if ((error as { code?: unknown }).code === '42P01') return { kind: 'older', pending: [] };
    throw error;
  }
  const applied = new Set(rows.map((row) => row.migration_name));
  const pending = expected.filter((name) => !applied.has(name)).sort();
  if (pending.length) return { kind: 'older', pending };
  const unknown = [...applied].filter((name) => !expected.includes(name)).sort();
  const contract = unknown.filter(isContractStep);
  if (contract.length) return { kind: 'newer-contract', contract };
  return unknown.length ? { kind: 'newer-expand', unknown } : { kind: 'this-build' };
}

/** Why this build cannot run on the database's schema, or null when it can. */
export function schemaProblem(state: SchemaState): string | null {
  switch (state.kind) {
    case 'this-build':
    case 'newer-expand':
      return null;
    case 'newer-contract':
      return `newer schema than this build, with a contract step: ${state.contract.join(', ')} (roll forward to the release that ran it)`;
    case 'older':
      return state.pending.length === 0
        ? 'older schema than this build: no migrations applied (run db:migrate)'
        : `older schema than this build: pending migrations ${state.pending.join(', ')} (run db:migrate)`;
  }
}

/** What readiness says of a schema this build runs on. */
export function schemaNote(state: SchemaState): string {
  return state.kind === 'newer-expand'
    ? `ok: newer schema, expand-only (${state.unknown.join(', ')})`
    : "ok: this build's schema";
}

/** Why the database's schema is not one this build can run on, or null when it is. */
export async function schemaVersionProblem(query: Query, baseDir = migrationsDir): Promise<string | null> {
  return schemaProblem(await schemaState(query, baseDir));
}
