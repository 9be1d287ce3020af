// The database every test database on a PostgreSQL server is copied from: migrated and seeded once,
// named by a hash of what makes it (the migrations, the registry's seed and the code that loads
// it), so a change to any of them makes a new one and an unchanged checkout reuses the last.
// `CREATE DATABASE … TEMPLATE` copies it in a fraction of a second, where migrating each new
// database took 1.4 CPU-seconds of the test's process and left the WASM schema engine's timer
// keeping that process alive for ten more seconds (docs/testing.md).
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyMigrations, openDatabase, prismaDir, readMigrations } from '@devplat/db';
import { seedRegistry } from '@devplat/domain/registry';
import { databaseUrlFor, dropDatabase } from '@devplat/topology/database';
import pg from 'pg';

const templatePrefix = 'devplat_template_';
const registryLoader = new URL('../../packages/3-domain/domain/src/registry/store.ts', import.meta.url);

export interface TemplateNames {
  /** Every template of these contents starts so. */
  prefix: string;
  seeded: string;
  /** Migrated only. */
  bare: string;
}

/** What a template is made of, hashed: the migrations the engine applies, the seed file and the seed's code. */
async function namesOfThisCheckout(): Promise<TemplateNames> {
  const migrations = await readMigrations();
  const hash = createHash('sha256')
    .update(JSON.stringify([migrations.lockfile.content, migrations.migrationDirectories]))
    .update(await readFile(join(prismaDir, 'seed/registry.json')))
    .update(await readFile(registryLoader))
    .digest('hex')
    .slice(0, 16);
  const prefix = `${templatePrefix}${hash}_`;
  return { prefix, seeded: `${prefix}seeded`, bare: `${prefix}bare` };
}

let names: Promise<TemplateNames> | undefined;
export const templateNames = () => (names ??= namesOfThisCheckout());

export async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const objectInUse = '55006';

/**
 * Runs a statement that needs nobody connected to a database (a copy from it, a rename): a
 * connection just closed can linger a moment in PostgreSQL, so it is tried again for up to 5 s.
 */
export async function whenUnused(client: pg.Client, statement: string): Promise<void> {
  const until = Date.now() + 5_000;
  for (;;) {
    try {
      await client.query(statement);
      return;
    } catch (error) {
      if ((error as { code?: string }).code !== objectInUse || Date.now() > until) throw error;
      await sleep(50);
    }
  }
}

/**
 * Makes both templates on the server where they are missing. Under an advisory lock (held until
 * the connection ends), so the test files that start together build them once; each is built
 * under a temporary name and renamed, so a template that exists is whole. Templates of other
 * contents are dropped as it makes new ones.
 */
export async function ensureTemplates(serverUrl: string): Promise<void> {
  const { prefix, seeded, bare } = await templateNames();
  const missing = async (client: pg.Client) => {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = ANY($1)',
      [[seeded, bare]],
    );
    return [seeded, bare].filter((name) => !rows.some((row) => row.datname === name));
  };
  const stale = await onServer(serverUrl, async (client) => {
    if ((await missing(client)).length === 0) return [];
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [templatePrefix]);
    for (const name of await missing(client)) {
      const building = `${name}_building`;
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${building}`);
      const database = await openDatabase({
        databaseUrl: databaseUrlFor(serverUrl, building),
        pgliteDir: null,
        poolSize: 2,
      });
      try {
        await applyMigrations(database.adapter);
        if (name === seeded) await seedRegistry(database.prisma);
      } finally {
        await database.close();
      }
      await whenUnused(client, `ALTER DATABASE ${building} RENAME TO ${name}`);
    }
    const { rows } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'devplat\\_template\\_%' AND datname NOT LIKE $1",
      [`${prefix}%`],
    );
    return rows.map((row) => row.datname);
  });
  for (const name of stale) await dropDatabase(serverUrl, name);
}
