// The benchmarks: each server in its own process, all started first, then loaded with autocannon
// in alternating rounds, so a change in what else the machine does falls on every server alike
// instead of on whichever ran last. Uses DATABASE_URL / REDIS_URL when set.
//   npm run bench:token -- [seconds=6] [connections=10] [rounds=5]   client_credentials vs a bare signing route
//   npm run bench:api   -- [seconds=6] [connections=50] [rounds=5]   /cities and /me vs a bare route verifying
//                                                                     the same token and writing the same bytes,
//                                                                     and a bare hello-world
//   npm run bench:refresh -- [seconds=6] [connections=10] [rounds=5]  refresh_token grant vs one Redis round trip
//                                                                     and one signature, the same plus the
//                                                                     consent's liveness read (PostgreSQL), and
//                                                                     oidc-provider alone plus that read (engine)
//   npm run bench:code  -- [seconds=6] [connections=8] [rounds=5]     authorization-code flows (authorize, Allow,
//                                                                     token) vs a bare app with the same requests,
//                                                                     the same plus the consent's transaction, and
//                                                                     oidc-provider alone plus it (engine)
// token, api, refresh and code then load the platform and its floor (bare signing route, bare
// /cities route, engine) open loop at half the platform's closed-loop throughput (open-loop.ts)
// and print each one's p99 at that rate.
//   npm run bench:topology -- [seconds=6] [connections=10] [rounds=5] tokens and /cities through nginx vs direct
//   npm run bench:revoke -- [seconds=6] [connections=10] [rounds=5]   RFC 7009 revocations of app tokens
//   npm run bench:scale -- [seconds=6] [connections=10] [rounds=5]    api at 1, 2 and 4 replicas (/cities, /me),
//                                                                     then auth (tokens, refresh), through the
//                                                                     gateway, each replica under a CPU limit
//                                                                     (BENCH_SCALE_CPU, default 0.1); connections
//                                                                     per replica
//   npm run bench:costs -- [seconds=6] [connections=10] [rounds=5]    every tier's cost per operation: token,
//                                                                     /cities, /me, refresh, revocation, code flow
//   npm run bench:console -- [seconds=6] [connections=10] [rounds=5]  the console API's app read and request
//                                                                     log page, with a developer's session
// Every row prints what it served per second of one core: its successes over the CPU seconds its
// server's processes (with a topology's replicas and gateway) used during its rounds.
// BENCH_REDIS=cluster or sentinel runs the servers on such a Redis, started on loopback (bench/redis.ts).
// BENCH_DATABASE_URL runs the platform on that database (a seeded one: npm run seed:scale), kept.
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { PlayerAgent } from '@devplat/test/connected-apps';
import autocannon from 'autocannon';
import { codeFlow, FlowRefused, type FlowTarget, flowSteps, signInAll } from './flows.ts';
import { comparedAt, type Lap, ms, openLoop, p99Of, sendOnce } from './open-loop.ts';
import { benchRedis } from './redis.ts';
import type { Target } from './servers.ts';
import {
  added,
  costPerOperation,
  describeCores,
  describeCost,
  perSecond,
  type Spent,
  saturatedTier,
  spentBetween,
  type TierMeter,
  tierMeter,
} from './tiers.ts';

const [suite = 'token', secondsArg, connectionsArg, roundsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 6);
const connections = Number(connectionsArg ?? ({ api: 50, code: 8 } as Record<string, number>)[suite] ?? 10);
const rounds = Number(roundsArg ?? 5);
/**
 * Seconds each row is loaded before its rounds (JIT, pools, caches); BENCH_WARMUP. Replicas under a
 * CPU limit compile at a tenth of the speed: bench:scale warms each for 15 s.
 */
const warmUp = Number(process.env.BENCH_WARMUP ?? (suite === 'scale' ? 15 : 2));
const servers = new URL('./servers.ts', import.meta.url).pathname;
/** BENCH_PROFILE=<dir>: every server writes a V8 CPU profile there when it stops (bench/profile.ts reads them). */
const profiling = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];

interface Server {
  child: ChildProcess;
  target: Target & { me?: Target } & Record<string, Target>;
  /** The log lines it has written to stdout so far. */
  logLines(): number;
}

/**
 * Starts a server; `argument` (JSON) passes it what another server answered, `env` what its row
 * runs without (LOG_LEVEL=warn). Its target comes on fd 3; its stdout, the platform's log lines,
 * is read and counted as a container runtime reads it, never left to fill its pipe.
 */
async function startServer(mode: string, argument?: unknown, env: Record<string, string> = {}): Promise<Server> {
  // A profile is named by its server's mode, its number argument and its row's difference
  // (topology-2.cpuprofile, token-warn.cpuprofile).
  const named = [mode, ...(typeof argument === 'number' ? [argument] : []), ...Object.values(env)];
  const profile = profiling.length ? [...profiling, `--cpu-prof-name=${named.join('-')}.cpuprofile`] : [];
  const args = [...profile, servers, mode, ...(argument === undefined ? [] : [JSON.stringify(argument)])];
  const child = spawn(process.execPath, args, {
    stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
    env: { ...productionEnv(), ...env, BENCH_TARGET_FD: '3' },
  });
  let lines = 0;
  child.stdout?.on('data', (chunk: Buffer) => {
    for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines += 1;
  });
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdio[3] as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${mode} server exited with ${code}`)));
  });
  return { child, target: JSON.parse(line), logLines: () => lines };
}

/**
 * The servers' environment: this one's, less what would take a platform off production's
 * defaults unseen (a LOG_LEVEL left in the shell). A row without something says so in its name.
 */
const productionEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !['LOG_LEVEL', 'OTEL_EXPORTER_OTLP_ENDPOINT'].includes(name)),
  );

async function stopServer({ child }: Server): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await new Promise((resolve) => child.once('exit', resolve));
}

const load = (target: Target, duration: number) =>
  autocannon({
    url: target.url,
    method: target.method,
    connections: target.connections ?? connections,
    duration,
    headers: target.headers,
    body: target.body,
    ...(target.refreshTokens && { requests: [rotating(target.refreshTokens)] }),
    ...(target.forms && { requests: [inTurn(target.forms)] }),
  });

/** Each request sends the next form, from the first again once all were sent. */
function inTurn(forms: string[]): autocannon.Request {
  let next = 0;
  return {
    setupRequest: (request) => ({ ...request, body: forms[next++ % forms.length] }),
    onResponse: (status, body) => {
      if (status !== 200) reportOnce(`answered ${status}`, body);
    },
  };
}

/** The first answer of each kind that was not a success, shown once (on stderr) to say why. */
const reported = new Set<string>();
function reportOnce(kind: string, detail: string) {
  if (reported.has(kind)) return;
  reported.add(kind);
  process.stderr.write(`${kind}: ${detail}\n`);
}

/**
 * Each request presents a refresh token from the pool and puts back the one it is answered with.
 * A connection has one request in flight, so a pool of more tokens than connections never runs
 * dry; a round's end drops the answers in flight, and with them at most one token per connection
 * (servers.ts mints enough for every round).
 */
function rotating(pool: string[]): autocannon.Request {
  return {
    setupRequest: (request) => {
      const token = pool.shift();
      if (token === undefined) reportOnce('refresh', 'the pool of refresh tokens ran out');
      return { ...request, body: refreshForm(token ?? 'none') };
    },
    onResponse: (status, body) => {
      if (status === 200) returnToPool(pool, body);
      else reportOnce(`refresh answered ${status}`, body);
    },
  };
}

const refreshForm = (token: string) => `grant_type=refresh_token&refresh_token=${token}`;

/** The refresh token a 200 answer carries, back in the pool for a later request. */
const returnToPool = (pool: string[], answer: string) =>
  void pool.push((JSON.parse(answer) as { refresh_token: string }).refresh_token);

interface Round {
  perSecond: number;
  p50: number;
  p90: number;
  p99: number;
  non2xx: number;
  errors: number;
}

interface Measured {
  name: string;
  target: Pick<Target, 'backend' | 'settings' | 'servicePids' | 'cpuStats' | 'replicas' | 'connections' | 'logDir'>;
  rounds: Round[];
  /** Every request it was sent, the warm-up's included: to set its log lines against. */
  requests: number;
  /** CPU seconds its server's processes used during its rounds (not the warm-up). */
  cpuSeconds: number;
  /** What every tier spent in each round (tiers.ts). */
  spent: Spent[];
  /** HTTP bytes sent and received in its rounds (autocannon's rows; a flow's are not counted). */
  bytesOut: number;
  bytesIn: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const mean = (m: Measured) => sum(m.rounds.map((round) => round.perSecond)) / m.rounds.length;
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

/**
 * Runs one round of a target, adding what each tier spent meanwhile to its row, and the CPU its
 * server's processes used (the service, the rest of a topology and its gateway: the server's tree).
 */
async function timed<T>(m: Measured, round: () => Promise<T>): Promise<T> {
  const pid = serverOf.get(m.target)?.child.pid;
  if (!pid) return round();
  const metered = { serverPid: pid, servicePids: m.target.servicePids, cpuStats: m.target.cpuStats };
  const before = await meter.read(metered);
  const result = await round();
  const spent = spentBetween(before, await meter.read(metered));
  m.spent.push(spent);
  m.cpuSeconds += spent.service + spent.rest + spent.gateway;
  return result;
}

/** The bytes of one request as autocannon writes it (request line, Host, headers, body). */
function requestBytes(target: Target): number {
  const url = new URL(target.url);
  const headers = Object.entries(target.headers).map(([name, value]) => `${name}: ${value}\r\n`);
  const body =
    target.body ?? (target.forms?.[0] || (target.refreshTokens ? refreshForm(target.refreshTokens[0] as string) : ''));
  const length = body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : '';
  return Buffer.byteLength(
    `${target.method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n${headers.join('')}${length}\r\n${body}`,
  );
}

/** What a row served per second of one core: its successes over its server's CPU seconds. */
const perCore = (m: Measured) => (m.cpuSeconds > 0 ? (mean(m) * seconds * rounds) / m.cpuSeconds : 0);

/**
 * Gives a target a fresh access token where it names where one comes from (Target.bearer): a run
 * outlasts the 300 s a token lives. The refresh token of a user token is rotated in place.
 */
async function freshBearer(target: Target): Promise<void> {
  const { bearer } = target;
  if (!bearer) return;
  const body = bearer.refreshToken ? `grant_type=refresh_token&refresh_token=${bearer.refreshToken}` : bearer.body;
  const answer = await fetch(bearer.url, { method: 'POST', headers: bearer.headers, body });
  const json = (await answer.json()) as { access_token?: string; refresh_token?: string };
  if (!answer.ok || !json.access_token)
    throw new Error(`a fresh token for ${target.url} answered ${answer.status}: ${JSON.stringify(json)}`);
  if (bearer.refreshToken) bearer.refreshToken = json.refresh_token;
  target.headers = { ...target.headers, authorization: `Bearer ${json.access_token}` };
}

/**
 * Warms every target up (JIT, pools, caches), then loads them in turn, `rounds` times. With
 * `rewarm`, each round is preceded by that many seconds of unmeasured load on the same target: a
 * replica under a CPU limit that sat idle while the others were loaded starts its round warm.
 */
async function measure(targets: Record<string, Target>, rewarm = 0): Promise<Measured[]> {
  const measured = Object.entries(targets).map(([name, target]) => ({
    name,
    target,
    rounds: [] as Round[],
    requests: 0,
    cpuSeconds: 0,
    spent: [] as Spent[],
    bytesOut: 0,
    bytesIn: 0,
  }));
  for (const m of measured) {
    await freshBearer(m.target);
    m.requests += (await load(m.target, warmUp)).requests.total;
  }
  for (let round = 0; round < rounds; round += 1) {
    for (const m of measured) {
      await freshBearer(m.target);
      if (rewarm) m.requests += (await load(m.target, rewarm)).requests.total;
      const result = await timed(m, () => load(m.target, seconds));
      m.requests += result.requests.total;
      m.bytesOut += result.requests.total * requestBytes(m.target);
      m.bytesIn += result.throughput.total;
      const { p50, p90, p99 } = result.latency;
      m.rounds.push({
        perSecond: result['2xx'] / seconds,
        p50,
        p90,
        p99,
        non2xx: result.non2xx,
        errors: result.errors,
      });
    }
  }
  return measured;
}

/** The q-quantile of sorted values, in whole ms. */
const quantile = (sorted: number[], q: number) =>
  sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number) : 0;

/**
 * One round of flows: a worker per player, each running flows back to back for `duration`
 * seconds; the flows that completed within it, per second, and their latencies (a flow's three
 * requests). A refused step counts as non-2xx, a failed request as an error.
 */
async function flowRound(target: FlowTarget, agents: Awaited<ReturnType<typeof signInAll>>, duration: number) {
  const end = performance.now() + duration * 1000;
  const durations: number[] = [];
  let refused = 0;
  let errors = 0;
  await Promise.all(
    agents.map(async (agent) => {
      while (performance.now() < end) {
        const started = performance.now();
        try {
          await codeFlow(target, agent);
          const finished = performance.now();
          if (finished <= end) durations.push(finished - started);
        } catch (error) {
          if (error instanceof FlowRefused) refused += 1;
          else errors += 1;
          reportOnce(error instanceof FlowRefused ? 'flow refused' : 'flow failed', String(error));
        }
      }
    }),
  );
  const sorted = durations.sort((a, b) => a - b);
  const round: Round = {
    perSecond: durations.length / duration,
    p50: quantile(sorted, 0.5),
    p90: quantile(sorted, 0.9),
    p99: quantile(sorted, 0.99),
    non2xx: refused,
    errors,
  };
  return round;
}

/** A row of flows, with its players signed in. */
type FlowsMeasured = Measured & { target: FlowTarget; agents: PlayerAgent[] };

/** As measure, for flows: every target's players signed in first, then a warm-up and the rounds. */
async function measureFlows(targets: Record<string, FlowTarget>): Promise<FlowsMeasured[]> {
  const measured = await Promise.all(
    Object.entries(targets).map(async ([name, target]) => ({
      name,
      target,
      agents: await signInAll(target),
      rounds: [] as Round[],
      requests: 0,
      cpuSeconds: 0,
      spent: [] as Spent[],
      bytesOut: 0,
      bytesIn: 0,
    })),
  );
  for (const m of measured) await flowRound(m.target, m.agents, warmUp);
  for (let round = 0; round < rounds; round += 1) {
    for (const m of measured) m.rounds.push(await timed(m, () => flowRound(m.target, m.agents, seconds)));
  }
  return measured;
}

/**
 * One line per target: mean throughput over the rounds, median latencies, the worst p99, and what
 * it served per second of one core with the cores its server's processes kept busy.
 */
function line(m: Measured): string {
  const of = (key: keyof Round) => m.rounds.map((round) => round[key]);
  const ms = (value: number) => `${String(value).padStart(3)} ms`;
  return (
    `${m.name.padEnd(10)} ${mean(m).toFixed(0).padStart(7)} /s   p50 ${ms(median(of('p50')))}   ` +
    `p90 ${ms(median(of('p90')))}   p99 ${ms(median(of('p99')))} (worst ${Math.max(...of('p99'))} ms)   ` +
    `non-2xx ${sum(of('non2xx'))}   errors ${sum(of('errors'))}   ` +
    `per core ${perCore(m).toFixed(0)} /s (${(m.cpuSeconds / (seconds * rounds)).toFixed(2)} cores)   (${m.target.backend})`
  );
}

/** Throughput round by round, to show how much what else the machine did moved the numbers. */
function roundLines(measured: Measured[]): string {
  return Array.from({ length: rounds }, (_, round) => {
    const each = measured.map((m) => `${m.name} ${(m.rounds[round] as Round).perSecond.toFixed(0)} /s`);
    return `round ${round + 1}: ${each.join(', ')}\n`;
  }).join('');
}

/** The ratio over all rounds, with the spread of the ratio round by round. */
function ratio(part: Measured, whole: Measured): string {
  const perRound = part.rounds.map((round, i) => round.perSecond / (whole.rounds[i] as Round).perSecond);
  const spread = `${percent(Math.min(...perRound), 1)} to ${percent(Math.max(...perRound), 1)}`;
  return `${percent(mean(part), mean(whole))} (rounds: ${spread})`;
}

/** The rows of a suite measured as bare, then essential and engine where they ran, then the platform. */
function floorRows<M extends Measured>(measured: M[]) {
  const byName = (name: string) => measured.find((m) => m.name === name);
  return {
    bareRow: byName('bare') as M,
    essentialRow: byName('essential'),
    engineRow: byName('engine'),
    platformRow: byName('platform') as M,
  };
}

/** A suite's last lines: the platform against oidc-provider alone with `essential` work, target 75%. */
function engineLines(platform: Measured, engine: Measured | undefined, essential: string): string {
  if (!engine) return 'no engine floor: it needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL)\n';
  return (
    `engine: oidc-provider alone on the minimal adapter + ${essential}\n` +
    `platform / engine: ${ratio(platform, engine)} (target: at least 75%)\n`
  );
}

/**
 * Latency at an offered load (open-loop.ts): the platform's row and its floor in turn, `rounds`
 * rounds of `seconds` each after a warm-up of `warmUp` s each, started at half the platform's
 * closed-loop throughput. Every round
 * printed, then the p99 over all rounds of each step (a flow's requests) and of the whole operation,
 * the platform's against the floor's at the same rate.
 */
async function openLoopLines<M extends Measured>(
  platform: M,
  floor: M,
  operationOf: (m: M) => (lap: Lap) => Promise<void> = (m) => requestOperation(m.target as Target),
  steps: readonly string[] = [],
): Promise<string> {
  const rate = Math.max(1, Math.round(mean(platform) / 2));
  const rows = [platform, floor];
  const pooled = rows.map(() => ({}) as Record<string, number[]>);
  const failed = rows.map(() => 0);
  const lines: string[] = [];
  // Each row first runs a warm-up at the rate, untimed, as the closed loop does: the open loop's
  // connections are new, and the row's process has just come from its closed-loop rounds.
  for (const m of rows) {
    await freshBearer(m.target as Target);
    await openLoop(rate, warmUp, operationOf(m));
  }
  for (let round = 0; round < rounds; round += 1) {
    const each: string[] = [];
    for (const [i, m] of rows.entries()) {
      await freshBearer(m.target as Target);
      const result = await openLoop(rate, seconds, operationOf(m));
      const into = pooled[i] as Record<string, number[]>;
      for (const [step, values] of Object.entries(result.latencies)) into[step] = (into[step] ?? []).concat(values);
      failed[i] = (failed[i] as number) + result.failed;
      if (result.firstFailure) reportOnce(`open loop ${m.name}`, result.firstFailure);
      each.push(
        `${m.name} p99 ${ms(p99Of(result.latencies.whole))} (${result.failed} of ${result.due} failed; ` +
          `the generator at worst ${ms(result.worstLateness)} late)`,
      );
    }
    lines.push(`open loop round ${round + 1} at ${rate}/s: ${each.join(', ')}\n`);
  }
  const compared = (step: string, what: string) =>
    `${comparedAt(
      `${rate}/s${what}`,
      { name: platform.name, latencies: pooled[0]?.[step] ?? [], failed: failed[0] as number },
      { name: floor.name, latencies: pooled[1]?.[step] ?? [], failed: failed[1] as number },
    )}\n`;
  return [
    `open loop at ${rate}/s: each row after a ${warmUp} s warm-up at that rate\n`,
    ...lines,
    ...steps.map((step) => compared(step, `, ${step}`)),
    compared('whole', steps.length ? ', whole flow' : ''),
  ].join('');
}

/**
 * A target's request as an open loop sends it: a refresh presents a token from the target's pool
 * (shared with its closed-loop load) and puts back the one it is answered with.
 */
function requestOperation(target: Target): () => Promise<void> {
  const { method, headers, body } = target;
  return async () => {
    const pool = target.refreshTokens;
    if (!pool) return void (await sendOnce(target.url, { method, headers, body }));
    const token = pool.shift();
    if (token === undefined) throw new Error('the pool of refresh tokens ran out');
    returnToPool(pool, await sendOnce(target.url, { method, headers, body: refreshForm(token) }));
  };
}

/** A row's flows as an open loop starts them: each flow as the next of its signed-in players, timed request by request. */
function flowOperation(m: FlowsMeasured): (lap: Lap) => Promise<void> {
  let next = 0;
  return async (lap) => {
    await codeFlow(m.target, m.agents[next++ % m.agents.length] as PlayerAgent, lap);
  };
}

/**
 * Families of refresh tokens beyond the closed loop's, for the open loop's requests in flight: at
 * half the platform's throughput a few, after a stall of the machine as many as it held back.
 */
const openLoopFamilies = 200;

/** Redis round trips and PostgreSQL statements (or transactions, without pg_stat_statements) per operation of each row. */
function roundTripLine(operation: string, measured: Measured[], idle: Spent | null): string {
  const statements = meter.statementsFrom.startsWith('statements');
  const each = measured.map((m) => {
    const cost = rowCost(m, idle);
    const postgres = statements ? cost.statements : cost.transactions;
    return (
      `${m.name} Redis ${cost.redisRoundTrips.toFixed(2)} (${cost.redisCommands.toFixed(2)} commands), ` +
      `PostgreSQL ${postgres.toFixed(2)}`
    );
  });
  // Redis counts the reads it made of its clients' sockets: the commands that concurrent requests
  // sent together arrive in one. Both servers count what other processes on them did meanwhile.
  return (
    `round trips per ${operation} (Redis: socket reads; PostgreSQL: ${statements ? 'statements' : 'transactions'}): ` +
    `${each.join('; ')}\n`
  );
}

// The servers inherit this process's environment, BENCH_REDIS's settings included.
const redis = await benchRedis(process.env.BENCH_REDIS);
if (redis) Object.assign(process.env, redis.env);
const meter: TierMeter = await tierMeter(process.env.DATABASE_URL, process.env.REDIS_URL);
const header =
  `${connections} connections, ${rounds} alternating rounds of ${seconds} s each, after a ${warmUp} s warm-up` +
  (redis ? `; ${redis.describe}` : '');
/**
 * With BENCH_COMPARE_WARN=1, a row without the request line beside the production row (everything
 * else as in production), for what logging costs; by default every process runs at info.
 */
const warn = { LOG_LEVEL: 'warn' };
const compareWarn = process.env.BENCH_COMPARE_WARN === '1';
const started: Server[] = [];
/** The server each target (and its /me) is on, for its settings and its log lines. */
const serverOf = new Map<object, Server>();
const start = async (mode: string, argument?: unknown, env?: Record<string, string>) => {
  const server = await startServer(mode, argument, env);
  started.push(server);
  serverOf.set(server.target, server);
  // Its other targets: /me beside /cities, or the topology's four.
  for (const each of Object.values(server.target)) {
    if (each && typeof each === 'object' && 'url' in each) serverOf.set(each, server);
  }
  return server.target;
};

/** The lines of every log file in a folder. */
function linesIn(folder: string): number {
  let lines = 0;
  for (const name of readdirSync(folder)) {
    const text = readFileSync(join(folder, name));
    for (let at = text.indexOf(10); at !== -1; at = text.indexOf(10, at + 1)) lines += 1;
  }
  return lines;
}

/**
 * What each row ran with, and the log lines its process wrote: a platform on production's
 * settings writes about one per request (its request line), a bare route none.
 */
function settingsLines(measured: Measured[]): string {
  return measured
    .map((m) => {
      const perRequest = m.requests ? ` for ${m.requests.toLocaleString('en')} requests` : '';
      // A topology whose processes write their own log files: its lines there, for all its rows.
      if (m.target.logDir)
        return `  ${m.name}: ${m.target.settings}; ${linesIn(m.target.logDir).toLocaleString('en')} log lines in its topology's log files (all its rows), this row's${perRequest}\n`;
      const lines = serverOf.get(m.target)?.logLines() ?? 0;
      return `  ${m.name}: ${m.target.settings ?? 'a bare route (no logging)'}; ${lines.toLocaleString('en')} log lines${perRequest}\n`;
    })
    .join('');
}

/** The shared tiers' rate with nothing loaded, over 3 s (every server started, idle), to take off each row's costs. */
async function idleRate(server: Server): Promise<Spent> {
  const metered = { serverPid: server.child.pid as number };
  const before = await meter.read(metered);
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  return perSecond(spentBetween(before, await meter.read(metered)));
}

/** A row's successes over its rounds. */
const successes = (m: Measured) => sum(m.rounds.map((round) => round.perSecond * seconds));

const rowCost = (m: Measured, idle: Spent | null) => costPerOperation(added(m.spent), successes(m), idle, m);

/** Each row's costs per operation and the cores each tier kept busy. */
function costLines(measured: Measured[], idle: Spent | null): string {
  const counted = meter.statementsFrom.startsWith('statements');
  return measured
    .map(
      (m) =>
        `  ${m.name}: ${describeCost(rowCost(m, idle), counted)}\n    ${describeCores(added(m.spent), m.target.replicas ? m.target.replicas * scaleCpus : null)}\n`,
    )
    .join('');
}

/** With BENCH_JSON=<file>, every row, round and cost written to that file (bench/capacity.ts reads them). */
function writeJson(measured: Measured[], idle: Spent | null, more: Record<string, unknown> = {}) {
  const file = process.env.BENCH_JSON;
  if (!file) return;
  const rows = measured.map((m) => ({
    name: m.name,
    perSecond: mean(m),
    rounds: m.rounds,
    connections: m.target.connections ?? connections,
    replicas: m.target.replicas ?? null,
    cost: rowCost(m, idle),
    spent: m.spent,
  }));
  writeFileSync(
    file,
    `${JSON.stringify({ suite, at: new Date().toISOString(), header, statementsFrom: meter.statementsFrom, seconds, rounds, idle, rows, ...more }, null, 2)}\n`,
  );
}

/** bench:scale's CPU limit per replica (BENCH_SCALE_CPU), in CPUs. */
const scaleCpus = Number(process.env.BENCH_SCALE_CPU ?? 0.1);

try {
  if (suite === 'token') {
    const measured = await measure({
      bare: await start('sign'),
      platform: await start('token'),
      ...(compareWarn && { 'at warn': await start('token', undefined, warn) }),
    });
    const [bare, platform, quiet] = measured as [Measured, Measured, Measured | undefined];
    // Client credentials is served ahead of the provider by design: its floor is the bare signing route.
    const openLoopAtHalf = await openLoopLines(platform, bare);
    process.stdout.write(
      `client_credentials token issuance, ${header}\n${settingsLines(measured)}${roundLines(measured)}` +
        `${measured.map((m) => line(m)).join('\n')}\n${openLoopAtHalf}` +
        `platform / bare: ${ratio(platform, bare)} (target: at least 60%)\n` +
        (quiet ? `platform (info) / the same at warn: ${ratio(platform, quiet)} (target: at least 95%)\n` : ''),
    );
  } else if (suite === 'api') {
    const hello = await start('hello');
    const api = await start('api');
    const quiet = compareWarn ? await start('api', undefined, warn) : undefined;
    // Started after the platform: it captures /cities' answer and checks the same token.
    const verify = await start('verify', api);
    const measured = await measure({
      hello,
      bare: verify,
      '/cities': api,
      '/me': api.me as Target,
      ...(quiet && { '/cities at warn': quiet }),
    });
    const [bare, verified, cities, me, quietCities] = measured as Measured[];
    const p99 = (m: Measured) => `${median(m.rounds.map((round) => round.p99))} ms`;
    const openLoopAtHalf = await openLoopLines(cities as Measured, verified as Measured);
    process.stdout.write(
      `resource API, ${header}\n${settingsLines(measured)}${roundLines(measured)}${measured.map((m) => line(m)).join('\n')}\n` +
        openLoopAtHalf +
        `/cities / bare (same token verified, same bytes written): ${ratio(cities as Measured, verified as Measured)} (target: at least 70%)\n` +
        `/cities / hello: ${ratio(cities as Measured, bare as Measured)}; ` +
        `p99 /cities ${p99(cities as Measured)}, /me ${p99(me as Measured)} (closed loop)\n` +
        (quietCities
          ? `/cities (info) / the same at warn: ${ratio(cities as Measured, quietCities)} (target: at least 95%)\n`
          : ''),
    );
  } else if (suite === 'refresh') {
    // Each closed-loop round may drop one token per connection (the answers in flight when it
    // ends); the open loop needs a token for each request in flight, however many a stall piles up.
    const families = connections * (rounds + 3) + openLoopFamilies;
    const platform = (await start('refresh', families)) as unknown as Target & {
      shape: unknown;
      essential?: { databaseUrl: string | null };
    };
    const floor = { families, shape: platform.shape, essential: platform.essential };
    const bare = await start('refresh-bare', floor);
    // The essential and engine floors read the platform's own consents: they need its PostgreSQL.
    const onPostgres = Boolean(platform.essential?.databaseUrl);
    const essential = onPostgres ? await start('refresh-essential', floor) : undefined;
    const engine = onPostgres && process.env.REDIS_URL ? await start('refresh-engine', floor) : undefined;
    const idle = await idleRate(started[0] as Server);
    const measured = (await measure({
      bare,
      ...(essential && { essential }),
      ...(engine && { engine }),
      platform,
    })) as Measured[];
    const { bareRow, essentialRow, engineRow, platformRow } = floorRows(measured);
    const openLoopAtHalf = await openLoopLines(platformRow, engineRow ?? essentialRow ?? bareRow);
    process.stdout.write(
      `refresh_token grant, ${families} token families each, ${header}\n${settingsLines(measured)}${roundLines(measured)}` +
        `${measured.map((m) => line(m)).join('\n')}\n${costLines(measured, idle)}${roundTripLine('refresh', measured, idle)}` +
        openLoopAtHalf +
        (essentialRow
          ? `platform / essential (bare + the consent's liveness read): ${ratio(platformRow, essentialRow)}\n`
          : "no essential floor: it reads the platform's PostgreSQL (DATABASE_URL)\n") +
        `platform / bare (one Redis round trip and a signature): ${ratio(platformRow, bareRow)}\n` +
        engineLines(platformRow, engineRow, 'the liveness read'),
    );
  } else if (suite === 'code') {
    const platform = (await start('code', connections)) as unknown as FlowTarget & {
      shape: unknown;
      essential?: { databaseUrl: string | null };
    };
    const floor = { players: connections, shape: platform.shape, essential: platform.essential };
    const bare = (await start('code-bare', floor)) as unknown as FlowTarget;
    const onPostgres = Boolean(platform.essential?.databaseUrl);
    const essential = onPostgres ? ((await start('code-essential', floor)) as unknown as FlowTarget) : undefined;
    const engine =
      onPostgres && process.env.REDIS_URL ? ((await start('code-engine', floor)) as unknown as FlowTarget) : undefined;
    const idle = await idleRate(started[0] as Server);
    const measured = await measureFlows({ bare, ...(essential && { essential }), ...(engine && { engine }), platform });
    const { bareRow, essentialRow, engineRow, platformRow } = floorRows(measured);
    const floorRow = engineRow ?? essentialRow ?? bareRow;
    const openLoopAtHalf = await openLoopLines(platformRow, floorRow, flowOperation, flowSteps);
    const p99 = median(platformRow.rounds.map((round) => round.p99));
    process.stdout.write(
      `authorization-code flows (consent screen, Allow, token; PKCE S256; signed-in players), ` +
        `flows/s, ${connections} players each running flows back to back, ${rounds} alternating rounds of ` +
        `${seconds} s each, after a ${warmUp} s warm-up\n${settingsLines(measured)}${roundLines(measured)}${measured.map((m) => line(m)).join('\n')}\n` +
        `${costLines(measured, idle)}${roundTripLine('code flow of three requests', measured, idle)}` +
        openLoopAtHalf +
        (essentialRow
          ? `platform / essential (bare + the consent's transaction): ${ratio(platformRow, essentialRow)}\n`
          : "no essential floor: it writes to the platform's PostgreSQL (DATABASE_URL)\n") +
        `platform / bare (a Redis round trip per request): ${ratio(platformRow, bareRow)}; p99 ${p99} ms (closed loop)\n` +
        engineLines(platformRow, engineRow, "the consent's transaction"),
    );
  } else if (suite === 'console') {
    const app = await start('console');
    const measured = await measure({ 'GET app': app, 'GET log': app.requests as Target });
    process.stdout.write(
      `the console API (GET /api/apps/{client_id}; GET /api/apps/{client_id}/requests?limit=50&status=4xx), ` +
        `${header}\n${settingsLines(measured)}${roundLines(measured)}${measured.map((m) => line(m)).join('\n')}\n`,
    );
  } else if (suite === 'revoke') {
    const tokens = 20_000;
    const measured = await measure({ platform: await start('revoke', tokens) });
    process.stdout.write(
      `RFC 7009 revocation of app tokens (each request another token of ${tokens.toLocaleString('en')}, ` +
        `its jti written to the revoked list), ${header}\n${settingsLines(measured)}${roundLines(measured)}` +
        `${measured.map((m) => line(m)).join('\n')}\n`,
    );
  } else if (suite === 'costs') {
    // The six operations on production settings, each on a platform of its own, every tier metered.
    const families = connections * (rounds + 3);
    const token = await start('token');
    const api = await start('api');
    const refresh = await start('refresh', families);
    const revoke = await start('revoke', 5_000);
    const code = (await start('code', 8)) as unknown as FlowTarget;
    const idle = await idleRate(started[0] as Server);
    const measured = [
      ...(await measure({ token, '/cities': api, '/me': api.me as Target, refresh, revocation: revoke })),
      ...(await measureFlows({ 'code flow': code })),
    ];
    process.stdout.write(
      `every tier's cost per operation (PostgreSQL: ${meter.statementsFrom}; the shared tiers' idle rate taken off), ${header}\n` +
        `${settingsLines(measured)}${roundLines(measured)}${measured.map((m) => line(m)).join('\n')}\n${costLines(measured, idle)}`,
    );
    writeJson(measured, idle);
  } else if (suite === 'scale') {
    // One service scaled at a time behind the gateway, every replica under the same CPU limit, the
    // other service fixed at one replica; the load grows with the replicas (connections per replica).
    const logs = process.env.BENCH_SCALE_LOGS === 'pipe' ? 'pipe' : 'files';
    // BENCH_SCALE_ONLY=/cities,token: only these operations.
    const only = process.env.BENCH_SCALE_ONLY?.split(',');
    // Refresh families: every load (the warm-up, each round and the 3 s before it) may drop one per
    // connection (the answers in flight when it ends); connections per replica, auth replicas.
    const shape = (auth: number, api: number) => ({
      auth,
      api,
      cpus: scaleCpus,
      families: connections * auth * (2 * rounds + 4),
      logs,
    });
    const one = await start('scale-topology', shape(1, 1));
    const api2 = await start('scale-topology', shape(1, 2));
    const api4 = await start('scale-topology', shape(1, 4));
    const auth2 = await start('scale-topology', shape(2, 1));
    const auth4 = await start('scale-topology', shape(4, 1));
    // Each row a copy of its topology's target, with its connections, metered on the same processes.
    const rows = (operation: string, sizes: [number, Record<string, Target>][]) =>
      Object.fromEntries(
        sizes.map(([n, topology]) => {
          const target = topology[operation] as Target;
          const row = { ...target, connections: connections * n };
          serverOf.set(row, serverOf.get(target) as Server);
          return [`${operation} ${n}`, row];
        }),
      );
    const operations = [
      ['/cities', 'api'],
      ['/me', 'api'],
      ['token', 'auth'],
      ['refresh', 'auth'],
    ].filter(([operation]) => !only || only.includes(operation as string)) as [string, 'api' | 'auth'][];
    const targets = Object.assign(
      {},
      ...operations.map(([operation, service]) =>
        rows(
          operation,
          service === 'api'
            ? [
                [1, one],
                [2, api2],
                [4, api4],
              ]
            : [
                [1, one],
                [2, auth2],
                [4, auth4],
              ],
        ),
      ),
    ) as Record<string, Target>;
    // Alternating rounds among the replica counts of one operation at a time, each round after 3 s
    // of the same load: idle replicas under a limit would otherwise start a round cold.
    const measured: Measured[] = [];
    for (const [operation] of operations) {
      const group = Object.fromEntries(Object.entries(targets).filter(([name]) => name.startsWith(`${operation} `)));
      measured.push(...(await measure(group, 3)));
    }
    const byName = (name: string) => measured.find((m) => m.name === name) as Measured;
    const verdicts: string[] = [];
    const summary: string[] = [];
    for (const [operation, service] of operations) {
      const base = byName(`${operation} 1`);
      for (const [n, target] of [
        [2, 1.8],
        [4, 3.2],
      ] as const) {
        const row = byName(`${operation} ${n}`);
        const perRound = row.rounds.map(
          (round, i) => round.perSecond / Math.max((base.rounds[i] as Round).perSecond, 1e-9),
        );
        const times = mean(row) / mean(base);
        summary.push(
          `scale: ${operation} ${service} ${n} replicas = ${times.toFixed(2)}x one (rounds ${Math.min(...perRound).toFixed(2)}x-${Math.max(...perRound).toFixed(2)}x), limit ${scaleCpus} CPU each\n`,
        );
        if (times < target) {
          const perOperation = (m: Measured) => (1e6 * added(m.spent).service) / successes(m);
          verdicts.push(
            `  ${operation} at ${n} replicas is below ${target}x: saturated: ${saturatedTier(added(row.spent), n * scaleCpus, availableParallelism())}; ` +
              `the replicas' CPU per operation ${perOperation(base).toFixed(0)} µs at one, ${perOperation(row).toFixed(0)} µs at ${n}\n`,
          );
        }
      }
    }
    const stalls = measured.map((m) => {
      const spent = added(m.spent);
      const share = spent.periods ? (100 * spent.throttled) / spent.periods : 0;
      return `  ${m.name}: throttled in ${share.toFixed(0)}% of its replicas' periods, ${((1000 * spent.stalledSeconds) / Math.max(spent.throttled, 1)).toFixed(0)} ms stalled per throttled period; p99 ${median(m.rounds.map((round) => round.p99))} ms\n`;
    });
    process.stdout.write(
      `scale-out behind the gateway (nginx), one service at a time, each replica limited to ${scaleCpus} CPU ` +
        `(the kernel's CPU quota, period 100 ms), ${connections} connections per replica of the scaled service, ` +
        `each process writing its log ${logs === 'files' ? 'to a file of its own' : "through the topology's parent"}; ${header}\n` +
        `${settingsLines(measured)}${roundLines(measured)}${measured.map((m) => line(m)).join('\n')}\n` +
        `${costLines(measured, null)}quota stalls:\n${stalls.join('')}` +
        (verdicts.length ? `bends:\n${verdicts.join('')}` : 'every target met (2 replicas >= 1.8x, 4 >= 3.2x)\n') +
        summary.join(''),
    );
    writeJson(measured, null, { cpus: scaleCpus, connectionsPerReplica: connections });
  } else if (suite === 'topology') {
    const targets = await start('topology');
    const measured = await measure(targets);
    const [viaToken, directToken, viaCities, directCities] = measured as Measured[];
    const p50 = (m: Measured) => median(m.rounds.map((round) => round.p50));
    const added = (via: Measured, direct: Measured) =>
      `${ratio(via, direct)} of direct; p50 ${p50(via)} ms vs ${p50(direct)} ms`;
    process.stdout.write(
      `the gateway (nginx) in front of one auth and one api process, ${header}\n${settingsLines(measured)}${roundLines(measured)}` +
        `${measured.map((m) => line(m)).join('\n')}\n` +
        `token via gateway: ${added(viaToken as Measured, directToken as Measured)}\n` +
        `/cities via gateway: ${added(viaCities as Measured, directCities as Measured)}\n`,
    );
  } else {
    process.stderr.write(
      'usage: run.ts token|api|refresh|code|revoke|topology|scale|costs|console [seconds] [connections] [rounds]\n',
    );
    process.exitCode = 2;
  }
} finally {
  await Promise.all(started.map(stopServer));
  await meter.close();
  await redis?.stop();
}
process.exit();
