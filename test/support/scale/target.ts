// Where a platform at scale is seeded: a PostgreSQL database of its own (made when missing) or an
// embedded PGlite directory, migrated with the platform's migrations; and a Redis key prefix of
// its own. Both must be empty, or `fresh` empties them first: seeding never mixes into live data.
import { rmSync } from 'node:fs';
import { applyMigrations, type Database, openDatabase } from '@devplat/db';
import { type KeyValueStore, redisClientOf, redisStore } from '@devplat/kv';
import pg from 'pg';

export type { Database };

/** A seed's statements run for minutes at full size, far past the services' bound. */
const statementMs = 60 * 60_000;

async function onServer<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const server = new URL(url);
  server.pathname = '/postgres';
  const client = new pg.Client({ connectionString: server.href });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates the URL's database when it does not exist; drops it first when `fresh`. */
async function ensureDatabase(url: string, fresh: boolean): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name))
    throw new Error(`seed:scale makes databases named [a-z0-9_], not "${name}"`);
  await onServer(url, async (client) => {
    if (fresh) await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${name}`);
  });
}

/** A seeded database, for reading: its statements bounded as a seed's are. */
export const openSeededDatabase = (url: string): Promise<Database> =>
  openDatabase({ databaseUrl: url, poolSize: 2, timeoutMs: statementMs });

export interface ScaleDatabase {
  database: Database;
  /** Migrations applied now. */
  applied: string[];
  where: string;
}

/**
 * The database to seed, migrated: `url`'s (one connection, so the session's settings hold for every
 * statement) or PGlite in `pgliteDir`. Refuses one that already has accounts.
 */
export async function openScaleDatabase({
  url,
  pgliteDir,
  fresh,
}: {
  url: string | null;
  pgliteDir: string;
  fresh: boolean;
}): Promise<ScaleDatabase> {
  if (url) await ensureDatabase(url, fresh);
  else if (fresh) rmSync(pgliteDir, { recursive: true, force: true });
  const database = await openDatabase({ databaseUrl: url, pgliteDir, poolSize: 1, timeoutMs: statementMs });
  try {
    const applied = await applyMigrations(database.adapter);
    const [row] = await database.query<{ n: number }>('SELECT count(*)::int AS n FROM accounts', []);
    if (Number(row?.n) > 0) throw new Error('the database has accounts already: give --fresh to start it over');
    const where = url ? `PostgreSQL ${new URL(url).host}${new URL(url).pathname}` : `PGlite in ${pgliteDir}`;
    return { database, applied, where };
  } catch (error) {
    await database.close();
    throw error;
  }
}

/** Every key under the prefix, a batch at a time; `unprefixed` names whole keys. */
async function* keysUnder(unprefixed: KeyValueStore, prefix: string): AsyncGenerator<string[]> {
  const redis = redisClientOf(unprefixed);
  if (!redis) return;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length) yield keys;
  } while (cursor !== '0');
}

export interface ScaleStore {
  /** The store the platform would open: REDIS_URL with REDIS_KEY_PREFIX. */
  store: KeyValueStore;
  /** The same Redis without a prefix, for commands that name whole keys (measurements). */
  unprefixed: KeyValueStore;
  close(): Promise<void>;
}

/** Redis under `prefix`, refused when it holds keys already, or emptied first when `fresh`. */
export async function openScaleStore({
  url,
  prefix,
  fresh,
}: {
  url: string;
  prefix: string;
  fresh: boolean;
}): Promise<ScaleStore> {
  const timeoutMs = 120_000;
  const store = redisStore(url, { prefix, timeoutMs });
  const unprefixed = redisStore(url, { prefix: '', timeoutMs });
  const close = async () => {
    await store.close();
    await unprefixed.close();
  };
  await Promise.all([store.ready(), unprefixed.ready()]);
  for await (const keys of keysUnder(unprefixed, prefix)) {
    if (!fresh) {
      await close();
      throw new Error(`Redis has keys under "${prefix}" already: give --fresh to delete them, or another prefix`);
    }
    await redisClientOf(unprefixed)?.unlink(...keys);
  }
  return { store, unprefixed, close };
}
