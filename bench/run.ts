// The benchmarks: each server in its own process, all started first, then loaded with autocannon
// in alternating rounds, so a change in what else the machine does falls on every server alike
// instead of on whichever ran last. Uses DATABASE_URL / REDIS_URL when set.
//   npm run bench:token -- [seconds=6] [connections=10] [rounds=5]   client_credentials vs a bare signing route
//   npm run bench:api   -- [seconds=6] [connections=50] [rounds=5]   /cities and /me vs a bare route verifying
//                                                                     the same token and writing the same bytes,
//                                                                     and a bare hello-world
//   npm run bench:refresh -- [seconds=6] [connections=10] [rounds=5]  refresh_token grant vs one Redis round trip
//                                                                     and one signature, and the same plus the
//                                                                     consent's liveness read (PostgreSQL)
//   npm run bench:code  -- [seconds=6] [connections=8] [rounds=5]     authorization-code flows (authorize, Allow,
//                                                                     token) vs a bare app with the same requests,
//                                                                     and the same plus the consent's transaction
//   npm run bench:topology -- [seconds=6] [connections=10] [rounds=5] tokens and /cities through nginx vs direct
//   npm run bench:revoke -- [seconds=6] [connections=10] [rounds=5]   RFC 7009 revocations of app tokens
//   npm run bench:scale -- [seconds=6] [connections=10] [rounds=5]    one auth and api process against two,
//                                                                     through the gateway
//   npm run bench:console -- [seconds=6] [connections=10] [rounds=5]  the console API's app read and request
//                                                                     log page, with a developer's session
// Every row prints what it served per second of one core: its successes over the CPU seconds its
// server's processes (with a topology's replicas and gateway) used during its rounds.
// BENCH_REDIS=cluster or sentinel runs the servers on such a Redis, started on loopback (bench/redis.ts).
// BENCH_DATABASE_URL runs the platform on that database (a seeded one: npm run seed:scale), kept.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { treeCpuSeconds } from './cpu.ts';
import { codeFlow, FlowRefused, type FlowTarget, signInAll } from './flows.ts';
import { benchRedis } from './redis.ts';
import type { Target } from './servers.ts';

const [suite = 'token', secondsArg, connectionsArg, roundsArg] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 6);
const connections = Number(connectionsArg ?? ({ api: 50, code: 8 } as Record<string, number>)[suite] ?? 10);
const rounds = Number(roundsArg ?? 5);
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
    connections,
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
      return { ...request, body: `grant_type=refresh_token&refresh_token=${token ?? 'none'}` };
    },
    onResponse: (status, body) => {
      if (status === 200) pool.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
      else reportOnce(`refresh answered ${status}`, body);
    },
  };
}

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
  target: { backend: string; settings?: string };
  rounds: Round[];
  /** Every request it was sent, the warm-up's included: to set its log lines against. */
  requests: number;
  /** CPU seconds its server's processes used during its rounds (not the warm-up). */
  cpuSeconds: number;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const mean = (m: Measured) => sum(m.rounds.map((round) => round.perSecond)) / m.rounds.length;
const percent = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`;

/** Runs one round of a target, adding the CPU its server's processes used meanwhile to its row. */
async function timed<T>(m: Measured, round: () => Promise<T>): Promise<T> {
  const pid = serverOf.get(m.target)?.child.pid;
  const before = pid ? treeCpuSeconds(pid) : 0;
  const result = await round();
  if (pid) m.cpuSeconds += treeCpuSeconds(pid) - before;
  return result;
}

/** What a row served per second of one core: its successes over its server's CPU seconds. */
const perCore = (m: Measured) => (m.cpuSeconds > 0 ? (mean(m) * seconds * rounds) / m.cpuSeconds : 0);

/** Warms every target up (JIT, pools, caches), then loads them in turn, `rounds` times. */
async function measure(targets: Record<string, Target>): Promise<Measured[]> {
  const measured = Object.entries(targets).map(([name, target]) => ({
    name,
    target,
    rounds: [] as Round[],
    requests: 0,
    cpuSeconds: 0,
  }));
  for (const m of measured) m.requests += (await load(m.target, 2)).requests.total;
  for (let round = 0; round < rounds; round += 1) {
    for (const m of measured) {
      const result = await timed(m, () => load(m.target, seconds));
      m.requests += result.requests.total;
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

/** As measure, for flows: every target's players signed in first, then a warm-up and the rounds. */
async function measureFlows(targets: Record<string, FlowTarget>): Promise<Measured[]> {
  const measured = await Promise.all(
    Object.entries(targets).map(async ([name, target]) => ({
      name,
      target,
      agents: await signInAll(target),
      rounds: [] as Round[],
      requests: 0,
      cpuSeconds: 0,
    })),
  );
  for (const m of measured) await flowRound(m.target, m.agents, 2);
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

/** The rows of a suite measured as bare, then essential where it ran, then the platform. */
function floorRows(measured: Measured[]) {
  const byName = (name: string) => measured.find((m) => m.name === name);
  return {
    bareRow: byName('bare') as Measured,
    essentialRow: byName('essential'),
    platformRow: byName('platform') as Measured,
  };
}

// The servers inherit this process's environment, BENCH_REDIS's settings included.
const redis = await benchRedis(process.env.BENCH_REDIS);
if (redis) Object.assign(process.env, redis.env);
const header =
  `${connections} connections, ${rounds} alternating rounds of ${seconds} s each, after a 2 s warm-up` +
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

/**
 * What each row ran with, and the log lines its process wrote: a platform on production's
 * settings writes about one per request (its request line), a bare route none.
 */
function settingsLines(measured: Measured[]): string {
  return measured
    .map((m) => {
      const lines = serverOf.get(m.target)?.logLines() ?? 0;
      const perRequest = m.requests ? ` for ${m.requests.toLocaleString('en')} requests` : '';
      return `  ${m.name}: ${m.target.settings ?? 'a bare route (no logging)'}; ${lines.toLocaleString('en')} log lines${perRequest}\n`;
    })
    .join('');
}

try {
  if (suite === 'token') {
    const measured = await measure({
      bare: await start('sign'),
      platform: await start('token'),
      ...(compareWarn && { 'at warn': await start('token', undefined, warn) }),
    });
    const [bare, platform, quiet] = measured as [Measured, Measured, Measured | undefined];
    process.stdout.write(
      `client_credentials token issuance, ${header}\n${settingsLines(measured)}${roundLines(measured)}` +
        `${measured.map((m) => line(m)).join('\n')}\n` +
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
    process.stdout.write(
      `resource API, ${header}\n${settingsLines(measured)}${roundLines(measured)}${measured.map((m) => line(m)).join('\n')}\n` +
        `/cities / bare (same token verified, same bytes written): ${ratio(cities as Measured, verified as Measured)} (target: at least 70%)\n` +
        `/cities / hello: ${ratio(cities as Measured, bare as Measured)}; ` +
        `p99 /cities ${p99(cities as Measured)} (target: under 10 ms), /me ${p99(me as Measured)}\n` +
        (quietCities
          ? `/cities (info) / the same at warn: ${ratio(cities as Measured, quietCities)} (target: at least 95%)\n`
          : ''),
    );
  } else if (suite === 'refresh') {
    // Each round may drop one token per connection (the answers in flight when it ends).
    const families = connections * (rounds + 3);
    const platform = (await start('refresh', families)) as unknown as Target & {
      shape: unknown;
      essential?: { databaseUrl: string | null };
    };
    const bare = await start('refresh-bare', { families, shape: platform.shape });
    // The essential floor reads the platform's own consents: it needs its PostgreSQL.
    const essential = platform.essential?.databaseUrl
      ? await start('refresh-essential', { families, shape: platform.shape, essential: platform.essential })
      : undefined;
    const measured = (await measure({ bare, ...(essential && { essential }), platform })) as Measured[];
    const { bareRow, essentialRow, platformRow } = floorRows(measured);
    process.stdout.write(
      `refresh_token grant, ${families} token families each, ${header}\n${settingsLines(measured)}${roundLines(measured)}` +
        `${measured.map((m) => line(m)).join('\n')}\n` +
        (essentialRow
          ? `platform / essential (bare + the consent's liveness read): ${ratio(platformRow, essentialRow)} (target: at least 50%)\n`
          : "no essential floor: it reads the platform's PostgreSQL (DATABASE_URL)\n") +
        `platform / bare (one Redis round trip and a signature): ${ratio(platformRow, bareRow)}\n`,
    );
  } else if (suite === 'code') {
    const platform = (await start('code', connections)) as unknown as FlowTarget & {
      shape: unknown;
      essential?: { databaseUrl: string | null };
    };
    const floor = { players: connections, shape: platform.shape };
    const bare = (await start('code-bare', floor)) as unknown as FlowTarget;
    const essential = platform.essential?.databaseUrl
      ? ((await start('code-essential', { ...floor, essential: platform.essential })) as unknown as FlowTarget)
      : undefined;
    const measured = await measureFlows({ bare, ...(essential && { essential }), platform });
    const { bareRow, essentialRow, platformRow } = floorRows(measured);
    const p99 = median(platformRow.rounds.map((round) => round.p99));
    process.stdout.write(
      `authorization-code flows (consent screen, Allow, token; PKCE S256; signed-in players), ` +
        `flows/s, ${connections} players each running flows back to back, ${rounds} alternating rounds of ` +
        `${seconds} s each, after a 2 s warm-up\n${settingsLines(measured)}${roundLines(measured)}${measured.map((m) => line(m)).join('\n')}\n` +
        (essentialRow
          ? `platform / essential (bare + the consent's transaction): ${ratio(platformRow, essentialRow)} (target: at least 50%)\n`
          : "no essential floor: it writes to the platform's PostgreSQL (DATABASE_URL)\n") +
        `platform / bare (a Redis round trip per request): ${ratio(platformRow, bareRow)}; ` +
        `p99 ${p99} ms (target: under 50 ms)\n`,
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
  } else if (suite === 'scale') {
    // One auth and one api process behind the gateway, against two of each, through the gateway.
    const one = await start('topology', 1);
    const two = await start('topology', 2);
    const measured = await measure({
      'token, 1 auth': one['token via gateway'] as Target,
      'token, 2 auth': two['token via gateway'] as Target,
      '/cities, 1 api': one['/cities via gateway'] as Target,
      '/cities, 2 api': two['/cities via gateway'] as Target,
    });
    const [token1, token2, cities1, cities2] = measured as Measured[];
    process.stdout.write(
      `one process of auth and of api against two, through the gateway (nginx), ${header}\n` +
        `${settingsLines(measured)}${roundLines(measured)}${measured.map((m) => line(m)).join('\n')}\n` +
        `tokens, two auth / one: ${ratio(token2 as Measured, token1 as Measured)}\n` +
        `/cities, two api / one: ${ratio(cities2 as Measured, cities1 as Measured)}\n`,
    );
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
      'usage: run.ts token|api|refresh|code|revoke|topology|scale|console [seconds] [connections] [rounds]\n',
    );
    process.exitCode = 2;
  }
} finally {
  await Promise.all(started.map(stopServer));
  await redis?.stop();
}
process.exit();
