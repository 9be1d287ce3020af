// npm run soak -- [--redis sentinel|cluster] [--postgres single|sync|async] [--duration 10m]
//                  [--load N] [--faults cycle|once] [--seed N] [--chains N]
// The split platform (2 of each service behind nginx) on a Redis Sentinel or Cluster and on
// PostgreSQL behind one address (the machine's server, or a primary with a streaming standby of the
// soak's own) under a mixed load while a schedule injects faults (bench/soak/faults.ts). Every
// request is recorded; afterwards a checker reads the history (bench/soak/checker.ts,
// obligations.ts) and the run exits 1 on any violation, naming each on its last lines. Prints each
// fault's window against its bound, the counts and availability per operation outside the windows
// (markdown tables), then PASS or FAIL.
import { writeFileSync } from 'node:fs';
import { faultBounds } from './soak/bounds.ts';
import { check, expectedEvents } from './soak/checker.ts';
import { faultKinds, quietMs, runSchedule } from './soak/faults.ts';
import { type Bound, History } from './soak/history.ts';
import { startLoad } from './soak/load.ts';
import { attribute, settleMs } from './soak/obligations.ts';
import { minimums, type SoakOptions, soakOptions, usage } from './soak/options.ts';
import { type SoakPlatform, startSoakPlatform } from './soak/platform.ts';
import { seeded } from './soak/random.ts';
import { watchRoles } from './soak/redis.ts';
import { faultTable, kindTable, operationTable, verdictLines } from './soak/report.ts';
import { consentDeliveries } from './soak/webhooks.ts';

let options: SoakOptions;
try {
  options = soakOptions(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${usage}\n`);
  process.exit(64);
}

const say = (line = '') => process.stdout.write(`${line}\n`);
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const began = performance.now();
const random = seeded(options.seed);
say(
  `soak: ${options.redis}, PostgreSQL ${options.postgres}, ${options.faults === 'once' ? 'every fault once' : seconds(options.durationMs)}, load ×${options.level}, seed ${options.seed}, ${options.chains} refresh chains; starting…`,
);

let platform: SoakPlatform;
try {
  platform = await startSoakPlatform({ redis: options.redis, postgres: options.postgres }, options.chains, random);
} catch (error) {
  process.stderr.write(`the soak's platform could not start: ${(error as Error).message}\n`);
  process.exit(1);
}
process.on('exit', () => platform.topology.kill());
// Stopped early (Ctrl-C): everything it started goes too (Redis, PostgreSQL servers, their files).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    process.stderr.write(`${signal}: stopping the soak's platform…\n`);
    void platform.stop().finally(() => process.exit(130));
  });
}
let crashed: string | null = null;
void platform.topology.crashed.then((how) => {
  crashed = how;
});
say(
  `platform ready in ${seconds(performance.now() - began)} (${platform.redis.describe}; ${platform.postgres.describe}); load and faults…`,
);

const history = new History();
const received = consentDeliveries(platform.receiver, platform.target.signingSecret, platform.target.app.clientId);
const load = startLoad(history, platform.target, random, options.level);
const kinds = faultKinds(platform, random);
const schedule = runSchedule(history, kinds, {
  durationMs: options.durationMs,
  gapMs: settleMs + 1_000,
  random,
  stopping: () => crashed !== null,
  once: options.faults === 'once',
  // Every end acknowledged in the minute before a fault is checked again after it.
  after: (fault) => load.recheck(fault.start - 60_000),
  established: load.established,
});
let scheduleDone = false;
void schedule.done.then(() => {
  scheduleDone = true;
});
// Any planned fault may move the Redis roles; only a move outside every planned fault is reported.
const unwatch = watchRoles(
  platform.redis,
  () => history.injecting,
  (change) => {
    const name = 'observed: Redis roles changed, unplanned';
    history.observed(name, faultBounds(options.redis)[name] as Bound, change);
  },
  () => history.now(),
);
const pause = () => new Promise((r) => setTimeout(r, 250));
if (options.faults === 'once') {
  // Every kind once, then the tail: quiet load that shows the platform whole again.
  while (!scheduleDone && crashed === null) await pause();
  const tailEnds = history.now() + quietMs(options.durationMs).tail;
  while ((history.now() < tailEnds || history.now() < options.durationMs) && crashed === null) await pause();
} else {
  while (history.now() < options.durationMs && crashed === null) await pause();
}
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
const run = {
  entries: history.entries,
  faults: history.faults,
  deliveries: received,
  kinds: kinds.map((kind) => kind.name),
  minimums,
};
const verdict = check(run);
if (options.record) writeFileSync(options.record, JSON.stringify(run));
await platform.stop();

const attribution = attribute(history.entries, history.faults);
say();
say(
  `## Faults (${options.redis}, PostgreSQL ${options.postgres}, load ×${options.level}, seed ${options.seed}; times from the load's start)`,
);
say();
for (const line of faultTable(history.entries, history.faults, attribution)) say(line);
if (schedule.skipped.length) say(`\nnot run (no time left in the first cycle): ${schedule.skipped.join('; ')}`);
say();
say();
say('## Each kind of fault against its bound');
say();
for (const line of kindTable(
  kinds.map((kind) => kind.name),
  history.faults,
  attribution,
))
  say(line);
say();
const rate = (history.entries.length / (loadEnded / 1000)).toFixed(1);
say(
  `## Requests by operation (load ${seconds(loadEnded)}, ${rate} requests/s; availability outside every fault window)`,
);
say();
for (const line of operationTable(history.entries, attribution)) say(line);
say();
say(
  `minimum successes outside every window: ${Object.entries(minimums)
    .map(([op, least]) => `${op} ${least}`)
    .join(', ')}`,
);
say(
  `consent events: ${expected.length} promised by the history, ${new Set(received.map((each) => each.webhookId)).size} distinct delivered (${platform.receiver.received.length} deliveries)`,
);
if (crashed) say(`the topology stopped early: ${crashed}`);
say(`logs kept in ${platform.logDir}; whole run ${seconds(performance.now() - began)}`);
say();
for (const line of verdictLines(verdict)) say(line);
if (crashed) say(`FAIL: the topology stopped early: ${crashed}`);
process.exit(verdict.violations.length || crashed ? 1 : 0);
