// npm run bench:lists -- [--samples 50] [--only statements|endpoints]: how the admin API's and the
// console's lists and searches answer on a platform seeded by `npm run seed:scale` (PostgreSQL and
// Redis: the console needs both). First each hot read's statements, EXPLAIN ANALYZEd with the
// values the platform sends (a warm-up, then the median of three runs); then each endpoint over
// HTTP, the admin API and the console each in its own process, called one request at a time:
// p50, p90, p99 and the slowest.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { operatorTokensFile, startAdminApi } from '@devplat/test/admin-api';
import { hotReads } from '@devplat/test/scale/hot-reads';
import {
  accessPaths,
  explain,
  filteredWalks,
  fullScans,
  hotStatements,
  type PlanNode,
  type Statement,
} from '@devplat/test/scale/plans';
import { pickSubjects, type Subjects } from '@devplat/test/scale/subjects';
import { type Database, openSeededDatabase } from '@devplat/test/scale/target';
import { plannedDeployment, startService } from '@devplat/test/services';
import { type Latency, latencyOf, timedCall } from './latency.ts';
import { listEndpoints, type Signer, signers } from './list-endpoints.ts';

const { values } = parseArgs({
  options: {
    'database-url': { type: 'string' },
    'redis-url': { type: 'string' },
    'redis-prefix': { type: 'string' },
    password: { type: 'string', default: 'scale-password' },
    samples: { type: 'string', default: '50' },
    only: { type: 'string' },
  },
});
const env = (name: string) => process.env[name]?.trim() || undefined;
const databaseUrl = values['database-url'] ?? env('DATABASE_URL');
const redisUrl = values['redis-url'] ?? env('REDIS_URL');
const prefix = values['redis-prefix'] ?? env('REDIS_KEY_PREFIX') ?? 'devplat:';
if (!databaseUrl || !redisUrl)
  throw new Error('bench:lists needs the seeded PostgreSQL and Redis: DATABASE_URL and REDIS_URL');
const samples = Number(values.samples);
const say = (line: string) => process.stdout.write(`${line}\n`);
const ms = (value: number) => value.toFixed(1).padStart(7);

/** A warm-up run, then the median time of three, and the plan. */
async function timed(query: Database['query'], statement: Statement): Promise<{ ms: number; plan: PlanNode }> {
  const { plan } = await explain(query, statement, true);
  const times: number[] = [];
  for (let i = 0; i < 3; i++) times.push((await explain(query, statement, true)).executionMs ?? 0);
  return { ms: times.toSorted((a, b) => a - b)[1] as number, plan };
}

async function statementTimes(subjects: Subjects): Promise<void> {
  const database = await openSeededDatabase(databaseUrl as string);
  try {
    say('\nStatements: EXPLAIN ANALYZE of each hot read (ms in PostgreSQL), and how each table is reached');
    for (const { read, statements } of await hotStatements(database, hotReads, subjects)) {
      let total = 0;
      const paths = new Set<string>();
      const flags = new Set<string>();
      for (const statement of statements) {
        const { ms: spent, plan } = await timed(database.query, statement);
        total += spent;
        for (const path of accessPaths(plan)) paths.add(path);
        for (const table of fullScans(plan)) flags.add(`FULL SCAN of ${table}`);
        for (const walk of filteredWalks(plan)) flags.add(`FILTERED WALK of ${walk}`);
      }
      const flagged = [...flags].map((flag) => `  ${flag}`).join('');
      say(`  ${read.path.padEnd(7)} ${ms(total)}  ${read.name}${flagged}\n            ${[...paths].join('; ')}`);
    }
  } finally {
    await database.close();
  }
}

function line(name: string, latency: Latency): string {
  const items = latency.items === null ? '' : `${latency.items} items`;
  return `  ${name.padEnd(52)} ${ms(latency.p50)} ${ms(latency.p90)} ${ms(latency.p99)} ${ms(latency.max)}  ${`${(latency.bytes / 1024).toFixed(1)} KiB`.padStart(10)} ${items}`;
}

async function endpointTimes(subjects: Subjects): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-lists-'));
  const stores = { DATABASE_URL: databaseUrl as string, REDIS_URL: redisUrl as string, REDIS_KEY_PREFIX: prefix };
  const operatorToken = `devplat_admin_${randomBytes(32).toString('base64url')}`;
  const tokens = operatorTokensFile(join(dir, 'admin-tokens'));
  tokens.add('bench', 'read', operatorToken);
  // Production's settings: LOG_LEVEL info (a line per request) and the rest at their defaults.
  const admin = await startAdminApi({ ...stores, ADMIN_TOKENS_FILE: tokens.file, LOG_LEVEL: 'info' });
  const deployment = await plannedDeployment({ ...stores, LOG_LEVEL: 'info' });
  const consoleOrigin = deployment.env.CONSOLE_URL as string;
  const consoleService = await startService('console', deployment);
  try {
    const sessions = new Map<Signer, string>();
    for (const [signer, email] of Object.entries(signers(subjects)) as [Signer, string][]) {
      const response = await fetch(`${consoleOrigin}/api/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, password: values.password }),
      });
      if (response.status !== 201)
        throw new Error(`console sign-in of ${email}: ${response.status} ${await response.text()}`);
      sessions.set(signer, ((await response.json()) as { token: string }).token);
    }
    say(
      `\nEndpoints: ${samples} calls each, one at a time (ms from request to last byte); the console and ` +
        'the admin API on production settings: LOG_LEVEL=info, metrics and the request log on, tracing off',
    );
    say(`  ${''.padEnd(52)}     p50     p90     p99     max        size`);
    for (const endpoint of listEndpoints(subjects)) {
      const base = endpoint.door === 'admin' ? admin.url : `${consoleOrigin}/api`;
      const token = endpoint.door === 'admin' ? operatorToken : (sessions.get(endpoint.as as Signer) as string);
      const headers = { authorization: `Bearer ${token}` };
      const first = `${base}${endpoint.path}`;
      let url = first;
      for (let page = 0; page < (endpoint.pagesIn ?? 0); page++) {
        const cursor = (JSON.parse((await timedCall(url, headers)).text) as { next_cursor?: string | null })
          .next_cursor;
        if (!cursor) throw new Error(`${endpoint.name}: no page ${page + 2}`);
        url = `${first}${first.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}`;
      }
      say(line(`${endpoint.door} ${endpoint.name}`, await latencyOf(url, headers, { samples })));
    }
  } finally {
    await consoleService.stop();
    await admin.process.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const subjectsDatabase = await openSeededDatabase(databaseUrl);
const started = performance.now();
const subjects = await pickSubjects(subjectsDatabase.query).finally(() => subjectsDatabase.close());
say(
  `bench:lists on ${new URL(databaseUrl).host}${new URL(databaseUrl).pathname} (subjects found in ${((performance.now() - started) / 1000).toFixed(1)} s)`,
);
say(`  ${JSON.stringify(subjects)}`);
if (values.only !== 'endpoints') await statementTimes(subjects);
if (values.only !== 'statements') await endpointTimes(subjects);
