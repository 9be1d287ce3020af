// Reads prisma/migrations in the layout Prisma's own tooling writes, and applies what the
// database has not seen yet, recording each in _prisma_migrations as `prisma migrate deploy` does.
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SqlDriverAdapter, SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { MigrationList } from '@prisma/schema-engine-wasm';
import { prismaDir } from './paths.ts';
import { openSchemaEngine } from './schema-engine.ts';

export const migrationsDir = join(prismaDir, 'migrations');
const noFilters = { externalTables: [], externalEnums: [] };

export async function readMigrations(baseDir = migrationsDir): Promise<MigrationList> {
  const entries = existsSync(baseDir) ? await readdir(baseDir, { withFileTypes: true }) : [];
  const directories = entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name);
  directories.sort();
  const lockfilePath = join(baseDir, 'migration_lock.toml');
  return {
    baseDir,
    lockfile: {
      path: 'migration_lock.toml',
      content: existsSync(lockfilePath) ? await readFile(lockfilePath, 'utf8') : null,
    },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      directories.map(async (path) => ({
        path,
        migrationFile: {
          path: 'migration.sql',
          content: { tag: 'ok' as const, value: await readFile(join(baseDir, path, 'migration.sql'), 'utf8') },
        },
      })),
    ),
  };
}

/** Applies pending migrations; returns the names of those it applied. */
export async function applyMigrations(adapter: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const connections = closingConnections(adapter);
  const engine = await openSchemaEngine(connections.factory);
  try {
    const { appliedMigrationNames } = await engine.applyMigrations({
      migrationsList: await readMigrations(),
      filters: noFilters,
    });
    return appliedMigrationNames;
  } finally {
    engine.free();
    await connections.closeAll();
  }
}

// The engine holds a session-level advisory lock on its connection while it migrates and does
// not close that connection when freed: close every connection it opened, which ends the lock.
function closingConnections(adapter: SqlMigrationAwareDriverAdapterFactory) {
  const opened: SqlDriverAdapter[] = [];
  const track = async (connect: () => Promise<SqlDriverAdapter>) => {
    const connection = await connect();
    opened.push(connection);
    return connection;
  };
  const factory: SqlMigrationAwareDriverAdapterFactory = {
    provider: adapter.provider,
    adapterName: adapter.adapterName,
    connect: () => track(() => adapter.connect()),
    connectToShadowDb: () => track(() => adapter.connectToShadowDb()),
  };
  return { factory, closeAll: () => Promise.all(opened.map((connection) => connection.dispose())) };
}

/** The SQL that takes the migrations' schema to prisma/schema.prisma ('' when they agree). */
export async function diffSchemaAgainstMigrations(adapter: SqlMigrationAwareDriverAdapterFactory): Promise<string> {
  const schemaPath = join(prismaDir, 'schema.prisma');
  const schema = { path: schemaPath, content: await readFile(schemaPath, 'utf8') };
  const engine = await openSchemaEngine(adapter, schema);
  try {
    const result = await engine.diff({
      from: { tag: 'migrations', ...(await readMigrations()) },
      to: { tag: 'schemaDatamodel', files: [schema] },
      script: true,
      exitCode: null,
      filters: noFilters,
    });
    const script = result.stdout ?? '';
    return script.includes('This is an empty migration.') ? '' : script;
  } finally {
    engine.free();
  }
}
