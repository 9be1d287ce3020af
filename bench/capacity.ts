// The capacity model (docs/capacity.md): what any replica count and store size should reach, from
// every tier's measured cost per operation (bench:costs), checked against the scale-out measured
// under CPU limits (bench:scale), and what 10x and 100x of today's figures take.
//   node bench/capacity.ts [folder=docs/capacity/data]   prints the doc's tables (Markdown)
// The folder holds costs-<run>.json and scale-<run>.json, as BENCH_JSON=<file> writes them.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { OperationCost, Spent } from './tiers.ts';

interface Row {
  name: string;
  perSecond: number;
  rounds: { perSecond: number; p99: number }[];
  connections: number;
  replicas: number | null;
  cost: OperationCost;
  spent: Spent[];
}
interface Run {
  suite: string;
  at: string;
  rows: Row[];
  cpus?: number;
  seconds: number;
}

const folder = process.argv[2] ?? new URL('../docs/capacity/data', import.meta.url).pathname;
const runsOf = (suite: string): Run[] =>
  readdirSync(folder)
    .filter((name) => name.startsWith(`${suite}-`) && name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(join(folder, name), 'utf8')) as Run);

const mean = (values: number[]) => values.reduce((total, value) => total + value, 0) / values.length;
/** `245–318` over the runs, or one figure where they agree at that precision. */
const range = (values: number[], digits = 0) => {
  const [low, high] = [Math.min(...values).toFixed(digits), Math.max(...values).toFixed(digits)];
  return low === high ? low : `${low}–${high}`;
};
const group = (value: number) => Math.round(value).toLocaleString('en');
const table = (header: string[], rows: string[][]) =>
  [
    `| ${header.join(' | ')} |`,
    `| ${header.map(() => '---').join(' | ')} |`,
    ...rows.map((row) => `| ${row.join(' | ')} |`),
  ].join('\n');

// --- (3) every tier's cost per operation, over the runs of bench:costs ------------------------
const costRuns = runsOf('costs');
const operations = ['token', '/cities', '/me', 'refresh', 'code flow', 'revocation'];
const costsOf = (operation: string) =>
  costRuns.map((run) => run.rows.find((row) => row.name === operation)?.cost).filter(Boolean) as OperationCost[];
/** The mean cost of an operation over the runs. */
const cost = (operation: string): OperationCost => {
  const all = costsOf(operation);
  return Object.fromEntries(
    Object.keys(all[0] ?? {}).map((key) => [key, mean(all.map((each) => each[key as keyof OperationCost]))]),
  ) as unknown as OperationCost;
};
const costTable = table(
  [
    'operation',
    'served/s',
    'service CPU',
    'PostgreSQL CPU',
    'Redis CPU',
    'statements',
    'transactions',
    'Redis commands',
    'Redis round trips',
    'HTTP bytes out / in',
  ],
  operations.map((operation) => {
    const all = costsOf(operation);
    const served = costRuns.map((run) => run.rows.find((row) => row.name === operation)?.perSecond ?? 0);
    const of = (key: keyof OperationCost, digits = 0) =>
      range(
        all.map((each) => each[key]),
        digits,
      );
    return [
      operation,
      range(served),
      `${of('serviceMicros')} µs`,
      `${of('postgresMicros')} µs`,
      `${of('redisMicros')} µs`,
      of('statements', 2),
      of('transactions', 2),
      of('redisCommands', 2),
      of('redisRoundTrips', 2),
      operation === 'code flow' ? 'not counted' : `${of('httpBytesOut')} / ${of('httpBytesIn')}`,
    ];
  }),
);

// --- (4) the model, checked against bench:scale -------------------------------------------------
const scaleRuns = runsOf('scale');
const cores = 2;
const scaleRow = (run: Run, name: string) => run.rows.find((row) => row.name === name) as Row;
const total = (spent: Spent[], key: keyof Spent) => spent.reduce((sum, each) => sum + (each[key] as number), 0);
const successes = (row: Row, seconds: number) => row.rounds.reduce((sum, round) => sum + round.perSecond * seconds, 0);
/** µs of `key` per operation in a measured row. */
const perOperation = (run: Run, row: Row, key: keyof Spent) =>
  (1e6 * total(row.spent, key)) / successes(row, run.seconds);
/** The CPU the machine spent on everything but the tiers (other processes, the kernel), in cores. */
const elsewhere = (row: Row) => {
  const keys: (keyof Spent)[] = ['service', 'gateway', 'postgres', 'redis', 'loadGenerator', 'rest'];
  const seconds = total(row.spent, 'seconds');
  return (total(row.spent, 'machine') - keys.reduce((sum, key) => sum + total(row.spent, key), 0)) / seconds;
};

/**
 * The throughput the model gives `replicas` replicas of `limit` CPU each on this machine: the least
 * of what the replicas' CPU buys (at the service's CPU per operation under the limit, measured at one
 * replica) and what the machine's cores buy once every tier's cost per operation is paid (the
 * stores' from bench:costs; the gateway's, the load generator's and the rest from the one-replica row).
 */
function predicted(run: Run, operation: string, replicas: number) {
  const one = scaleRow(run, `${operation} 1`);
  const limit = run.cpus ?? 0.1;
  const service = perOperation(run, one, 'service');
  const harness = ['gateway', 'loadGenerator', 'rest'].reduce(
    (sum, key) => sum + perOperation(run, one, key as keyof Spent),
    0,
  );
  const stores = cost(operation).postgresMicros + cost(operation).redisMicros;
  const byReplicas = (replicas * limit * 1e6) / service;
  const byMachine = ((cores - elsewhere(one)) * 1e6) / (service + stores + harness);
  return { rate: Math.min(byReplicas, byMachine), bound: byReplicas <= byMachine ? 'replicas' : 'machine' };
}

const checks: string[][] = [];
for (const [operation, service] of [
  ['/cities', 'api'],
  ['/me', 'api'],
  ['token', 'auth'],
  ['refresh', 'auth'],
] as const) {
  for (const replicas of [1, 2, 4]) {
    const measured = scaleRuns.map((run) => scaleRow(run, `${operation} ${replicas}`).perSecond);
    const model = scaleRuns.map((run) => predicted(run, operation, replicas));
    const error = mean(measured.map((value, i) => (value - (model[i]?.rate ?? 0)) / (model[i]?.rate ?? 1)));
    const serviceCost = scaleRuns.map((run) => perOperation(run, scaleRow(run, `${operation} ${replicas}`), 'service'));
    checks.push([
      `${operation} (${service})`,
      String(replicas),
      `${group(mean(model.map((each) => each.rate)))}/s (${model[0]?.bound})`,
      `${group(mean(measured))}/s (${range(measured)})`,
      `${error >= 0 ? '+' : ''}${(100 * error).toFixed(0)}%${Math.abs(error) > 0.15 ? ' ✗' : ''}`,
      `${range(serviceCost)} µs`,
    ]);
  }
}
const checkTable = table(
  ['operation', 'replicas', 'model', 'measured (runs)', 'measured vs model', "replicas' CPU per operation"],
  checks,
);

// --- (4) 10x and 100x of today's one-machine figures --------------------------------------------
/** Today's figures on one machine, per second, and the planning rules of the manifests. */
const today = { token: 1_000, refresh: 100, '/cities': 5_000, '/me': 5_000, 'code flow': 10, revocation: 10 };
const auth = ['token', 'refresh', 'code flow', 'revocation'];
/** The HorizontalPodAutoscaler's target: 70% of the 500m request. */
const perReplica = 0.7 * 0.5;
/** What one PostgreSQL primary and one Redis shard are planned at: 70% of 64 vCPUs, of one core. */
const primaryCores = 64 * 0.7;
const shardCores = 0.7;
const connectionsPerProcess = 20;
/** Replicas and cores each load needs, by the model. */
const needs = (factor: number) => {
  const rate = (operation: string) => (today[operation as keyof typeof today] ?? 0) * factor;
  const sum = (operations: string[], key: keyof OperationCost) =>
    operations.reduce((all, operation) => all + rate(operation) * cost(operation)[key], 0);
  const authCores = sum(auth, 'serviceMicros') / 1e6;
  const apiCores = sum(['/cities', '/me'], 'serviceMicros') / 1e6;
  return { authReplicas: Math.ceil(authCores / perReplica), apiReplicas: Math.ceil(apiCores / perReplica) };
};
const scaleRows = [1, 10, 100].map((factor) => {
  const rate = (operation: string) => (today[operation as keyof typeof today] ?? 0) * factor;
  const sum = (operations: string[], key: keyof OperationCost) =>
    operations.reduce((all, operation) => all + rate(operation) * cost(operation)[key], 0);
  const all = Object.keys(today);
  const authCores = sum(auth, 'serviceMicros') / 1e6;
  const apiCores = sum(['/cities', '/me'], 'serviceMicros') / 1e6;
  const authReplicas = Math.max(2, Math.ceil(authCores / perReplica));
  const apiReplicas = Math.max(2, Math.ceil(apiCores / perReplica));
  const postgresCores = sum(all, 'postgresMicros') / 1e6;
  const redisCores = sum(all, 'redisMicros') / 1e6;
  return [
    `${factor}×`,
    `${group(rate('token'))} tokens, ${group(rate('refresh'))} refreshes, ${group(rate('/cities') + rate('/me'))} api calls`,
    `${authReplicas} (${authCores.toFixed(1)} CPU)`,
    `${apiReplicas} (${apiCores.toFixed(1)} CPU)`,
    `${group(sum(all, 'statements'))}/s, ${postgresCores.toFixed(1)} CPU (${((100 * postgresCores) / primaryCores).toFixed(0)}% of a 64-vCPU primary at 70%)`,
    group((authReplicas + apiReplicas + 1) * connectionsPerProcess),
    `${group(sum(all, 'redisCommands'))}/s, ${redisCores.toFixed(2)} CPU: ${Math.max(1, Math.ceil(redisCores / shardCores))} shard(s)`,
  ];
});
const sizingTable = table(
  [
    'load',
    'per second',
    'auth replicas',
    'api replicas',
    'PostgreSQL statements, CPU',
    'PostgreSQL connections',
    'Redis commands, shards',
  ],
  scaleRows,
);

// The production overlay's autoscalers: at least today's replicas with one to spare (a replica or a
// zone lost still carries today), at most what 10x of today takes.
const autoscalers = table(
  ['autoscaler', 'minReplicas', 'maxReplicas', 'a replica at the target serves'],
  (['auth', 'api'] as const).map((service) => {
    const key = service === 'auth' ? 'authReplicas' : 'apiReplicas';
    const served =
      service === 'auth'
        ? `${group((perReplica * 1e6) / cost('token').serviceMicros)} tokens/s or ${group((perReplica * 1e6) / cost('refresh').serviceMicros)} refreshes/s`
        : `${group((perReplica * 1e6) / mean([cost('/cities').serviceMicros, cost('/me').serviceMicros]))} calls/s`;
    return [service, String(Math.max(2, needs(1)[key]) + 1), String(needs(10)[key]), served];
  }),
);

process.stdout.write(
  `<!-- costs: ${costRuns.map((run) => run.at).join(', ')}; scale: ${scaleRuns.map((run) => run.at).join(', ')} -->\n\n` +
    `### Every tier's cost per operation\n\n${costTable}\n\n` +
    `### The model against bench:scale\n\n${checkTable}\n\n` +
    `### 1×, 10× and 100× of today\n\n${sizingTable}\n\n` +
    `### The production overlay's autoscalers (70% of the 500m request)\n\n${autoscalers}\n`,
);
