// The database every test database on a PostgreSQL server is copied from: migrated and seeded once,
// named by a hash of what makes it (the migrations, the registry's seed and the code that loads
// it), so a change to any of them makes a new one and an unchanged checkout reuses the last.
// `CREATE DATABASE … TEMPLATE` copies it in a fraction of a second, where migrating each new
// database took 1.4 CPU-seconds of the test's process and left the WASM schema engine's timer
// keeping that process alive for ten more seconds (docs/testing.md).
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyMigrations, openDatabase, prismaDir } from '@devplat/db';
import { seedRegistry } from '@devplat/domain/registry';
import pg from 'pg';

const templatePrefix = 'devplat_template_';
const registryLoader = new URL('../../packages/domain/src/registry/store.ts', import.meta.url);

/** What a template is made of, hashed: every migration, the seed file and the seed's code. */
function contentHash(): string {
  const hash = createHash('sha256');
  const migrations = join(prismaDir, 'migrations');
  for (const name of readdirSync(migrations).sort()) {
    hash.update(name);
    if (name.endsWith('.toml')) hash.update(readFileSync(join(migrations, name)));
    else hash.update(readFileSync(join(migrations, name, 'migration.sql')));
  }
  hash.update(readFileSync(join(prismaDir, 'seed/registry.json')));
  hash.update(readFileSync(registryLoader));
  return hash.digest('hex').slice(0, 16);
}

const hash = contentHash();

/** The template's name: seeded with the registry, or migrated only. */
export const templateName = (seeded: boolean) => `${templatePrefix}${hash}_${seeded ? 'seeded' : 'bare'}`;

export async function onServer<T>(serverUrl: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export function databaseUrl(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.href;
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
 * Makes both templates on the server where they are missing. Under an advisory lock, so the test
 * files that start together build them once; each is built under a temporary name and renamed, so
 * a template that exists is whole. Templates of other contents are dropped as it makes new ones.
 */
export async function ensureTemplates(serverUrl: string): Promise<void> {
  const missing = async (client: pg.Client) => {
    const names = [templateName(true), templateName(false)];
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname = ANY($1)',
      [names],
    );
    return names.filter((name) => !rows.some((row) => row.datname === name));
  };
  await onServer(serverUrl, async (client) => {
    if ((await missing(client)).length === 0) return;
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [templatePrefix]);
    for (const name of await missing(client)) {
      const building = `${name}_building`;
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${building}`);
      const database = await openDatabase({
        databaseUrl: databaseUrl(serverUrl, building),
        pgliteDir: null,
        poolSize: 2,
      });
      try {
        await applyMigrations(database.adapter);
        if (name === templateName(true)) await seedRegistry(database.prisma);
      } finally {
        await database.close();
      }
      await whenUnused(client, `ALTER DATABASE ${building} RENAME TO ${name}`);
    }
    const { rows: stale } = await client.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname LIKE 'devplat\\_template\\_%' AND datname NOT LIKE $1",
      [`${templatePrefix}${hash}%`],
    );
    for (const { datname } of stale) await client.query(`DROP DATABASE IF EXISTS ${datname} WITH (FORCE)`);
  });
}
