// A platform at scale, in a database (and a Redis) of its own: accounts owning apps and their
// secrets, sandbox players, consents, audit records, events and deliveries, revoked tokens, the
// sample city registry; then each active consent's live refresh-token family, player sessions and
// app version counters in Redis. `npm run seed:scale` (bench/seed-scale.ts) runs it at full size,
// the query-plan test at a small one.
import type { Database } from '@devplat/db';
import { seedRegistry } from '@devplat/domain/registry';
import type { KeyValueStore } from '@devplat/kv';
import { hashPassword } from '@devplat/passwords';
import { redisMemory } from './measure.ts';
import { postgresPhases } from './postgres.ts';
import { seedAppVersions, seedPlayerSessions, seedRefreshFamilies } from './redis.ts';
import type { ScaleSizes } from './sizes.ts';
import { derivation } from './sql.ts';

export interface ScaleSeedOptions {
  /** One connection (poolSize 1): the statements share its session settings. */
  database: Database;
  /** Redis; null leaves the Redis phases out (the in-memory store lives in one process only). */
  store: KeyValueStore | null;
  sizes: ScaleSizes;
  /** Names the data set: the same seed writes the same rows (default "devplat-scale"). */
  seed?: string;
  /** Every account's and player's password (hashed once). */
  password: string;
  pairwiseSecret: string;
  /** BASE_URL: the resource the families' tokens are for. */
  resource: string;
  now?: Date;
  /** Told as each phase goes (`done` false) and when it ends. */
  report?(phase: PhaseReport): void;
}

export interface PhaseReport {
  phase: string;
  rows: number;
  seconds: number;
  done: boolean;
  /** A Redis phase's growth of used_memory (the whole server's) and of the keys of its database. */
  redis?: { bytes: number; keys: number };
}

export interface ScaleSeedResult {
  phases: PhaseReport[];
  seconds: number;
}

export async function seedScale(options: ScaleSeedOptions): Promise<ScaleSeedResult> {
  const { database, store, sizes, report = () => {} } = options;
  const seed = options.seed ?? 'devplat-scale';
  const now = options.now ?? new Date();
  const phases: PhaseReport[] = [];
  const began = performance.now();
  const timed = async (
    phase: string,
    work: (progress: (rows: number) => void) => Promise<number>,
    measured: KeyValueStore | null = null,
  ) => {
    const before = measured && (await redisMemory(measured));
    const start = performance.now();
    const seconds = () => (performance.now() - start) / 1000;
    let lastSaid = start;
    const rows = await work((sofar) => {
      if (performance.now() - lastSaid < 10_000) return;
      lastSaid = performance.now();
      report({ phase, rows: sofar, seconds: seconds(), done: false });
    });
    const done: PhaseReport = { phase, rows, seconds: seconds(), done: true };
    const after = measured && (await redisMemory(measured));
    if (before && after) done.redis = { bytes: after.usedBytes - before.usedBytes, keys: after.keys - before.keys };
    phases.push(done);
    report(done);
  };

  // The planner expects a thousand rows of each generate_series and compiles every statement to
  // machine code: seconds each, for statements that spend their time in md5 and index inserts.
  await database.query('SET jit = off', []);
  if (database.kind === 'postgresql') await database.query("SET work_mem = '256MB'", []);
  const passwordHash = await hashPassword(options.password);
  const postgres = { query: database.query, d: derivation(seed, now), sizes, passwordHash };
  await timed('registry', async () => (await seedRegistry(database.prisma)).cities);
  for (const phase of postgresPhases) await timed(phase.name, () => phase.run(postgres));
  // The visibility map and the planner's statistics, as autovacuum keeps them on a platform that
  // grew to this size: without the map, every index-only scan reads the rows as well.
  await timed('vacuum analyze', async () => {
    await database.query('VACUUM (ANALYZE)', []);
    return 0;
  });

  if (store) {
    const redis = { database, store, seed, now, pairwiseSecret: options.pairwiseSecret, resource: options.resource };
    await timed('refresh families', (progress) => seedRefreshFamilies({ ...redis, progress }, sizes.families), store);
    await timed(
      'player sessions',
      (progress) => seedPlayerSessions({ ...redis, progress }, sizes.sessions, sizes.players),
      store,
    );
    await timed('app versions', (progress) => seedAppVersions({ ...redis, progress }, sizes.apps), store);
  }
  return { phases, seconds: (performance.now() - began) / 1000 };
}
