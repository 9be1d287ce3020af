// npm run soak -- [--redis sentinel|cluster] [--duration 10m|120s] [--seed N] [--chains N]
// The split platform (2 auth, 2 api, 2 worker, 1 console behind nginx) on a Redis Sentinel or
// Cluster and on PostgreSQL behind a fault proxy, under a mixed load while a schedule injects
// faults (bench/soak/faults.ts). Every request is recorded; afterwards a checker reads the history
// (bench/soak/checker.ts) and the run exits 1 on any violation. Prints each fault's window, the
// counts and availability per operation outside the windows (markdown tables), then PASS or FAIL.
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { check, expectedEvents } from './soak/checker.ts';
import { faultKinds, runSchedule } from './soak/faults.ts';
import { History } from './soak/history.ts';
import { startLoad } from './soak/load.ts';
import { type SoakPlatform, startSoakPlatform } from './soak/platform.ts';
import { seeded } from './soak/random.ts';
import { type RedisMode, watchRoles } from './soak/redis.ts';
import { attribute, faultTable, operationTable, settleMs, verdictLines } from './soak/report.ts';
import { consentDeliveries } from './soak/webhooks.ts';

const usage = 'usage: npm run soak -- [--redis sentinel|cluster] [--duration 10m|120s] [--seed N] [--chains N]';

function durationOf(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`--duration is a number with s, m or h (got "${text}")`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] as number;
  return Number(match[1]) * unit;
}

let options: { mode: RedisMode; durationMs: number; seed: number; chains: number };
try {
  const { values } = parseArgs({
    options: {
      redis: { type: 'string', default: 'sentinel' },
      duration: { type: 'string', default: '10m' },
      seed: { type: 'string' },
      chains: { type: 'string', default: '16' },
    },
  });
  if (values.redis !== 'sentinel' && values.redis !== 'cluster') throw new Error('--redis is sentinel or cluster');
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  const chains = Number(values.chains);
  if (!Number.isInteger(seed)) throw new Error('--seed is a whole number');
  if (!Number.isInteger(chains) || chains < 1 || chains > 18) throw new Error('--chains is 1 to 18');
  options = { mode: values.redis, durationMs: durationOf(values.duration), seed, chains };
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${usage}\n`);
  process.exit(64);
}

const say = (line = '') => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const began = performance.now();
const random = seeded(options.seed);
say(
  `soak: ${options.mode}, ${seconds(options.durationMs)}, seed ${options.seed}, ${options.chains} refresh chains; starting…`,
);

let platform: SoakPlatform;
try {
  platform = await startSoakPlatform(options.mode, options.chains, random);
} catch (error) {
  process.stderr.write(`the soak's platform could not start: ${(error as Error).message}\n`);
  process.exit(1);
}
process.on('exit', () => platform.topology.kill());
let crashed: string | null = null;
void platform.topology.crashed.then((how) => {
  crashed = how;
});
say(`platform ready in ${seconds(performance.now() - began)} (${platform.redis.describe}); load and faults…`);

const history = new History();
const received = consentDeliveries(platform.receiver, platform.target.signingSecret, platform.target.app.clientId);
const load = startLoad(history, platform.target, random);
const schedule = runSchedule(history, faultKinds(platform, random, options.durationMs), {
  durationMs: options.durationMs,
  gapMs: settleMs + 1_000,
  random,
  stopping: () => crashed !== null,
});
// Any planned fault may move the Redis roles; only a move outside every planned fault is reported.
const unwatch = watchRoles(
  platform.redis,
  () => history.injecting,
  (change) => history.observed('observed: Redis roles changed, unplanned', change),
  () => history.now(),
);
while (history.now() < options.durationMs && crashed === null) await new Promise((r) => setTimeout(r, 250));
await schedule.done;
await load.stop();
unwatch();
const loadEnded = history.now();

// Every promised consent event, given up to 60 s to arrive (deliveries retry with backoff).
const expected = expectedEvents(history.entries);
const deadline = Date.now() + 60_000;
const arrived = () => {
  const seen = new Set(received.map((each) => `${each.type} ${each.consentId}`));
  return expected.every((each) => seen.has(`${each.type} ${each.consentId}`));
};
while (!arrived() && Date.now() < deadline && crashed === null) await new Promise((r) => setTimeout(r, 250));
// A repeat under another webhook-id would come late: a moment more for one.
await new Promise((r) => setTimeout(r, 2_000));
const verdict = check(history.entries, received);
await platform.stop();

// Tokens never leave this process: an excerpt names one by a short hash.
const fingerprint = (token: string) => createHash('sha256').update(token).digest('hex').slice(0, 8);
const attribution = attribute(history.entries, history.faults);
say();
say(`## Faults (${options.mode}, seed ${options.seed}; times from the load's start)`);
say();
for (const line of faultTable(history.entries, history.faults, attribution)) say(line);
if (schedule.skipped.length) say(`\nnot run (no time left in the first cycle): ${schedule.skipped.join('; ')}`);
say();
say(`## Requests by operation (load ${seconds(loadEnded)}; availability outside every fault window)`);
say();
for (const line of operationTable(history.entries, attribution)) say(line);
say();
if (attribution.outside.length) {
  say(`${attribution.outside.length} failed request(s) outside every fault window:`);
  for (const entry of attribution.outside.slice(0, 20)) {
    say(
      `  #${entry.seq} ${seconds(entry.start)} ${entry.op} → ${entry.status ?? 'no answer'} ${entry.error ?? ''}`.trimEnd(),
    );
  }
}
say(
  `consent events: ${expected.length} promised by the history, ${new Set(received.map((each) => each.webhookId)).size} distinct delivered (${platform.receiver.received.length} deliveries)`,
);
if (crashed) say(`the topology stopped early: ${crashed}`);
say(`logs kept in ${platform.logDir}; whole run ${seconds(performance.now() - began)}`);
say();
for (const line of verdictLines(verdict, fingerprint)) say(line);
process.exit(verdict.violations.length || crashed ? 1 : 0);
