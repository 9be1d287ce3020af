// npm run seed:scale -- [--apps N] [--players N] [--consents N] [--audit N] [options]: a platform at
// scale in a database and a Redis of its own, for the benchmarks and the sizing figures
// (docs/benchmarks.md, "seed:scale"). Prints each phase as it ends and a summary of what it cost.
import { parseArgs } from 'node:util';
import { databaseBytes, keyKinds, redisMemory, tableSizes } from '@devplat/test/scale/measure';
import { type PhaseReport, seedScale } from '@devplat/test/scale/seed';
import { type ScaleSizes, scaleSizes } from '@devplat/test/scale/sizes';
import { openScaleDatabase, openScaleStore, type ScaleStore } from '@devplat/test/scale/target';

const usage = `npm run seed:scale -- [options]

Counts (default: a large platform; the others follow from these):
  --apps N (100000)  --players N (1000000)  --consents N (1000000)  --audit N (1000000)
  --accounts N (apps / 4)  --events N (consents / 10)  --revoked-tokens N (apps / 100, at most 1000)
  --families N (every active consent)  --sessions N (players / 10)
Where:
  --database-url URL   PostgreSQL database to fill, created when missing (default DATABASE_URL);
                       without one, the embedded PGlite in --pglite-dir (default .data/scale/pglite)
  --redis-url URL      (default REDIS_URL; none: no Redis state)   --redis-prefix P (default REDIS_KEY_PREFIX or devplat:)
  --fresh              drop the database and delete the prefix's keys first (otherwise both must be empty)
What:
  --seed TEXT          the same seed writes the same rows (default devplat-scale)
  --password TEXT      every account's and player's password (default scale-password)
  --pairwise-secret S  PAIRWISE_SECRET of the families' subjects (default PAIRWISE_SECRET, or a made-up one)
  --base-url URL       the resource of the families' tokens (default BASE_URL, or npm start's)`;

const { values } = parseArgs({
  options: {
    apps: { type: 'string' },
    players: { type: 'string' },
    consents: { type: 'string' },
    audit: { type: 'string' },
    accounts: { type: 'string' },
    events: { type: 'string' },
    'revoked-tokens': { type: 'string' },
    families: { type: 'string' },
    sessions: { type: 'string' },
    'database-url': { type: 'string' },
    'pglite-dir': { type: 'string', default: '.data/scale/pglite' },
    'redis-url': { type: 'string' },
    'redis-prefix': { type: 'string' },
    fresh: { type: 'boolean', default: false },
    seed: { type: 'string', default: 'devplat-scale' },
    password: { type: 'string', default: 'scale-password' },
    'pairwise-secret': { type: 'string' },
    'base-url': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});
if (values.help) {
  console.log(usage);
  process.exit(0);
}

/** 1000000, 1_000_000 and 1e6 alike. */
const count = (name: string): number | undefined => {
  const text = values[name as keyof typeof values] as string | undefined;
  if (text === undefined) return undefined;
  const value = Number(text.replaceAll('_', ''));
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} takes a whole number (got ${text})`);
  return value;
};
const given: Partial<ScaleSizes> = {};
for (const [flag, member] of [
  ['apps', 'apps'],
  ['players', 'players'],
  ['consents', 'consents'],
  ['audit', 'audit'],
  ['accounts', 'accounts'],
  ['events', 'events'],
  ['revoked-tokens', 'revokedTokens'],
  ['families', 'families'],
  ['sessions', 'sessions'],
] as const) {
  const value = count(flag);
  if (value !== undefined) given[member] = value;
}
const sizes = scaleSizes(given);
const env = (name: string) => process.env[name]?.trim() || undefined;
const databaseUrl = values['database-url'] ?? env('DATABASE_URL') ?? null;
const redisUrl = values['redis-url'] ?? env('REDIS_URL') ?? null;
const prefix = values['redis-prefix'] ?? env('REDIS_KEY_PREFIX') ?? 'devplat:';
if (redisUrl && prefix === '') throw new Error('--redis-prefix may not be empty: seeding keeps to a prefix of its own');

const n = (value: number) => Math.round(value).toLocaleString('en-US');
const pad = (text: string, width: number) => text.padStart(width);
const say = (line: string) => process.stdout.write(`${line}\n`);

function phaseLine({ phase, rows, seconds, done, redis }: PhaseReport): string {
  const rate = seconds > 0 ? `${n(rows / seconds)} rows/s` : '';
  const memory = redis && rows ? `  Redis +${n(redis.bytes / 1024 / 1024)} MiB, ${n(redis.keys)} keys` : '';
  return `  ${phase.padEnd(18)} ${pad(n(rows), 11)} ${done ? 'rows' : 'so far'} ${pad(seconds.toFixed(1), 7)} s ${pad(rate, 16)}${memory}`;
}

const { database, applied, where } = await openScaleDatabase({
  url: databaseUrl,
  pgliteDir: values['pglite-dir'],
  fresh: values.fresh,
});
let redis: ScaleStore | null = null;
try {
  redis = redisUrl ? await openScaleStore({ url: redisUrl, prefix, fresh: values.fresh }) : null;
  say(
    `seed:scale into ${where}${redis ? `, Redis ${new URL(redisUrl as string).host} prefix "${prefix}"` : ', no Redis'}`,
  );
  say(`  ${applied.length} migrations applied; sizes ${JSON.stringify(sizes)}`);
  const result = await seedScale({
    database,
    store: redis?.store ?? null,
    sizes,
    seed: values.seed,
    password: values.password,
    pairwiseSecret: values['pairwise-secret'] ?? env('PAIRWISE_SECRET') ?? 'scale-pairwise-secret-0123456789abcdef',
    resource: values['base-url'] ?? env('BASE_URL') ?? 'http://127.0.0.1:8080/developer/v1',
    report: (phase) => say(phaseLine(phase)),
  });
  say(`seeded in ${result.seconds.toFixed(1)} s\n`);

  say('PostgreSQL                 rows    total MiB  bytes/row  (heap + indexes)');
  for (const table of await tableSizes(database.query)) {
    const perRow = table.rows ? table.totalBytes / table.rows : 0;
    const parts = table.rows ? `(${n(table.heapBytes / table.rows)} + ${n(table.indexBytes / table.rows)})` : '';
    say(
      `  ${table.table.padEnd(20)} ${pad(n(table.rows), 11)} ${pad((table.totalBytes / 2 ** 20).toFixed(1), 10)} ${pad(n(perRow), 9)}  ${parts}`,
    );
  }
  say(`  database ${((await databaseBytes(database.query)) / 2 ** 20).toFixed(0)} MiB`);

  if (redis) {
    const memory = await redisMemory(redis.store);
    say(
      `\nRedis: used_memory ${n((memory?.usedBytes ?? 0) / 2 ** 20)} MiB, ${n(memory?.keys ?? 0)} keys in its database`,
    );
    for (const phase of result.phases.filter((each) => each.redis && each.rows)) {
      const redisGrowth = phase.redis as { bytes: number; keys: number };
      say(
        `  ${phase.phase.padEnd(18)} ${n(redisGrowth.bytes / phase.rows)} bytes and ${(redisGrowth.keys / phase.rows).toFixed(2)} keys each (used_memory growth / rows)`,
      );
    }
    say('  MEMORY USAGE of a sample of keys, by kind:');
    for (const kind of await keyKinds(redis.unprefixed, prefix, 20_000)) {
      say(`    ${kind.kind.padEnd(44)} ${pad(n(kind.sampled), 7)} sampled ${pad(n(kind.meanBytes), 6)} bytes each`);
    }
  }
  say(`\nEvery account and player signs in with the password "${values.password}".`);
} finally {
  await redis?.close();
  await database.close();
}
// The WASM schema engine leaves a timer running (as db:migrate says).
process.exit();
