// What every tier spent while a row was loaded: the CPU of the service's processes, the gateway
// (nginx), PostgreSQL (every postgres process: backends, WAL writer, checkpointer), Redis and the
// load generator (this process: autocannon runs in it), from /proc; and PostgreSQL's and Redis's
// own counters: statements (pg_stat_statements, where it is loaded; else transactions from
// pg_stat_database), Redis commands, the reads Redis made of its clients' sockets (a round trip
// each, a pipeline's commands arriving together) and its bytes in and out.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cpuSecondsOf, type ProcessCpu, processTable, treeOf } from './cpu.ts';

/** The processes a row's costs are counted on. */
export interface Metered {
  /** The benchmark's server process (a platform, or a topology's parent). */
  serverPid: number;
  /** The service's processes, where they are not the server itself (a topology's scaled replicas). */
  servicePids?: number[];
  /** Their CPU limits' cpu.stat files, for how often they were throttled. */
  cpuStats?: string[];
}

/** PostgreSQL's and Redis's own counters: a reading's totals, or a cost's per operation. */
export interface StoreCounts {
  statements: number;
  transactions: number;
  redisCommands: number;
  redisRoundTrips: number;
  redisBytesIn: number;
  redisBytesOut: number;
}

export interface Reading extends StoreCounts {
  at: number;
  /** /proc/stat's busy time of every core, in seconds. */
  machine: number;
  service: number;
  /** The rest of a topology: its parent (the log reader with BENCH_SCALE_LOGS=pipe), the other service's replicas, the mock. */
  rest: number;
  gateway: number;
  postgres: number;
  redis: number;
  loadGenerator: number;
  periods: number;
  throttled: number;
  stalledSeconds: number;
}

export type Spent = Reading & { seconds: number };

/** A reading, and the CPU seconds of each PostgreSQL and Redis process at it. */
export type Snapshot = Reading & { byPid: Map<number, ProcessCpu> };

/**
 * CPU seconds of every process of these names, by pid: a PostgreSQL backend that exits between two
 * readings (a pool closing an idle connection) takes its whole CPU time out of a plain sum.
 */
function byPid(table: Map<number, ProcessCpu>, names: string[]): Map<number, ProcessCpu> {
  const found = new Map<number, ProcessCpu>();
  for (const [pid, each] of table) if (names.includes(each.name)) found.set(pid, each);
  return found;
}

/** Seconds the machine's cores were busy since boot (/proc/stat's first line, less idle and iowait). */
function machineBusySeconds(): number {
  // USER_HZ, 100 on every Linux that exports /proc/stat to user space.
  const ticksPerSecond = 100;
  const [, ...ticks] = (readFileSync('/proc/stat', 'utf8').split('\n')[0] as string).trim().split(/\s+/);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = ticks.map(Number);
  return (user + nice + system + irq + softirq + steal) / ticksPerSecond;
}

const statValue = (stat: string, key: string) => Number(new RegExp(`^${key}[: ](\\d+)`, 'm').exec(stat)?.[1] ?? 0);

export interface TierMeter {
  /** `statements from pg_stat_statements` or `transactions from pg_stat_database (pg_stat_statements is not loaded)`. */
  statementsFrom: string;
  read(metered: Metered): Promise<Snapshot>;
  close(): Promise<void>;
}

/** A meter on DATABASE_URL's server and REDIS_URL's Redis (either may be absent: its counters read 0). */
export async function tierMeter(databaseUrl?: string, redisUrl?: string): Promise<TierMeter> {
  let client: pg.Client | null = null;
  let statementsQuery: string | null = null;
  let statementsFrom = 'no PostgreSQL';
  if (databaseUrl) {
    // The meter's own connection is to the server's `postgres` database; its statements are not counted.
    const url = new URL(databaseUrl);
    url.pathname = '/postgres';
    client = new pg.Client({ connectionString: url.href });
    await client.connect();
    try {
      await client.query('create extension if not exists pg_stat_statements');
      await client.query('select 1 from pg_stat_statements limit 1');
      statementsQuery =
        "select coalesce(sum(calls), 0)::float8 as n from pg_stat_statements where dbid <> (select oid from pg_database where datname = 'postgres')";
      statementsFrom = 'statements from pg_stat_statements';
    } catch {
      statementsFrom = 'transactions from pg_stat_database (pg_stat_statements is not loaded: statements not counted)';
    }
  }
  const redis = redisUrl ? new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 }) : null;
  await redis?.connect();
  return {
    statementsFrom,
    async read({ serverPid, servicePids, cpuStats = [] }) {
      const [statements, transactions, redisStats] = await Promise.all([
        statementsQuery && client ? client.query(statementsQuery).then(({ rows }) => Number(rows[0].n)) : 0,
        client
          ?.query(
            "select coalesce(sum(xact_commit + xact_rollback), 0)::float8 as n from pg_stat_database where datname <> 'postgres'",
          )
          .then(({ rows }) => Number(rows[0].n)) ?? 0,
        redis?.info('stats') ?? '',
      ]);
      const table = processTable();
      const tree = treeOf(serverPid, table);
      const gatewayPids = tree.filter((pid) => table.get(pid)?.name === 'nginx');
      const service = servicePids ?? tree.filter((pid) => !gatewayPids.includes(pid));
      const rest = tree.filter((pid) => !gatewayPids.includes(pid) && !service.includes(pid));
      const throttling = cpuStats.map((file) => {
        try {
          return readFileSync(file, 'utf8');
        } catch {
          return '';
        }
      });
      const usage = process.cpuUsage();
      return {
        at: performance.now() / 1000,
        machine: machineBusySeconds(),
        service: cpuSecondsOf(service, table),
        rest: cpuSecondsOf(rest, table),
        gateway: cpuSecondsOf(gatewayPids, table),
        // Set from the processes' own times between two readings (spentBetween).
        postgres: 0,
        redis: 0,
        // Another Redis (a BENCH_REDIS cluster) too: every redis-server process.
        byPid: byPid(table, ['postgres', 'redis-server']),
        loadGenerator: (usage.user + usage.system) / 1e6,
        statements,
        transactions,
        redisCommands: statValue(redisStats, 'total_commands_processed'),
        redisRoundTrips: statValue(redisStats, 'total_reads_processed'),
        redisBytesIn: statValue(redisStats, 'total_net_input_bytes'),
        redisBytesOut: statValue(redisStats, 'total_net_output_bytes'),
        periods: throttling.reduce((total, stat) => total + statValue(stat, 'nr_periods'), 0),
        throttled: throttling.reduce((total, stat) => total + statValue(stat, 'nr_throttled'), 0),
        stalledSeconds: throttling.reduce(
          (total, stat) => total + statValue(stat, 'throttled_time') / 1e9 + statValue(stat, 'throttled_usec') / 1e6,
          0,
        ),
      };
    },
    async close() {
      await client?.end();
      redis?.disconnect();
    },
  };
}

/**
 * What was spent between two readings (the meter's own INFO: one command and one read, taken off);
 * PostgreSQL's and Redis's CPU from each process's own times, a process started meanwhile counted whole.
 */
export function spentBetween(before: Snapshot, after: Snapshot): Spent {
  const { byPid: beforeByPid, ...first } = before;
  const { byPid: afterByPid, ...last } = after;
  const spent = Object.fromEntries(
    Object.entries(last).map(([key, value]) => [key, value - (first[key as keyof Reading] as number)]),
  ) as unknown as Reading;
  const grew = (name: string) => {
    let seconds = 0;
    for (const [pid, now] of afterByPid)
      if (now.name === name) seconds += now.seconds - (beforeByPid.get(pid)?.seconds ?? 0);
    return seconds;
  };
  return {
    ...spent,
    postgres: grew('postgres'),
    redis: grew('redis-server'),
    redisCommands: Math.max(0, spent.redisCommands - 1),
    redisRoundTrips: Math.max(0, spent.redisRoundTrips - 1),
    seconds: spent.at,
  };
}

/** Adds up the spending of several rounds. */
export function added(all: Spent[]): Spent {
  const total = {} as Record<string, number>;
  for (const each of all) for (const [key, value] of Object.entries(each)) total[key] = (total[key] ?? 0) + value;
  return total as unknown as Spent;
}

/** Per second, from what was spent over `seconds` (an idle baseline's rate). */
export function perSecond(spent: Spent): Spent {
  return Object.fromEntries(
    Object.entries(spent).map(([key, value]) => [key, key === 'seconds' ? 1 : value / spent.seconds]),
  ) as unknown as Spent;
}

/** What one operation cost each tier: CPU in µs, counts per operation. */
export interface OperationCost extends StoreCounts {
  serviceMicros: number;
  postgresMicros: number;
  redisMicros: number;
  gatewayMicros: number;
  loadGeneratorMicros: number;
  /** HTTP bytes the client sent and received per operation (0 where not counted). */
  httpBytesOut: number;
  httpBytesIn: number;
}

/** The shared tiers' counters that an idle platform moves too (workers polling, timers): taken off at the idle rate. */
const shared = [
  'postgres',
  'redis',
  'statements',
  'transactions',
  'redisCommands',
  'redisRoundTrips',
  'redisBytesIn',
  'redisBytesOut',
] as const;

/** The cost of one of `operations` operations, given what was spent and the idle rate of the shared tiers. */
export function costPerOperation(
  spent: Spent,
  operations: number,
  idle: Spent | null,
  http: { bytesOut: number; bytesIn: number },
): OperationCost {
  const net = { ...spent };
  if (idle) for (const key of shared) net[key] = Math.max(0, spent[key] - idle[key] * spent.seconds);
  const per = (value: number) => (operations > 0 ? value / operations : 0);
  return {
    serviceMicros: per(net.service) * 1e6,
    postgresMicros: per(net.postgres) * 1e6,
    redisMicros: per(net.redis) * 1e6,
    gatewayMicros: per(net.gateway) * 1e6,
    loadGeneratorMicros: per(net.loadGenerator) * 1e6,
    statements: per(net.statements),
    transactions: per(net.transactions),
    redisCommands: per(net.redisCommands),
    redisRoundTrips: per(net.redisRoundTrips),
    redisBytesIn: per(net.redisBytesIn),
    redisBytesOut: per(net.redisBytesOut),
    httpBytesOut: per(http.bytesOut),
    httpBytesIn: per(http.bytesIn),
  };
}

const micros = (value: number) => `${value.toFixed(0)} µs`;

/** `service 290 µs, PostgreSQL 42 µs, …; 0.21 statements (0.21 transactions), 1.00 Redis commands in 1.00 round trips, …`. */
export function describeCost(cost: OperationCost, statementsCounted: boolean): string {
  const cpu = [
    `service ${micros(cost.serviceMicros)}`,
    `PostgreSQL ${micros(cost.postgresMicros)}`,
    `Redis ${micros(cost.redisMicros)}`,
    ...(cost.gatewayMicros > 0 ? [`gateway ${micros(cost.gatewayMicros)}`] : []),
    `load generator ${micros(cost.loadGeneratorMicros)}`,
  ];
  const statements = statementsCounted ? `${cost.statements.toFixed(2)} statements (` : '';
  const http = cost.httpBytesOut
    ? `; HTTP ${cost.httpBytesOut.toFixed(0)} B sent, ${cost.httpBytesIn.toFixed(0)} B received`
    : '';
  return (
    `CPU per operation: ${cpu.join(', ')}; ` +
    `${statements}${cost.transactions.toFixed(2)} transactions${statementsCounted ? ')' : ''}, ` +
    `${cost.redisCommands.toFixed(2)} Redis commands in ${cost.redisRoundTrips.toFixed(2)} round trips ` +
    `(${cost.redisBytesIn.toFixed(0)} B in, ${cost.redisBytesOut.toFixed(0)} B out)${http}`
  );
}

/** Cores each tier kept busy over what was spent: `replicas 0.79 of 0.80 (throttled in 97% of periods), gateway 0.31, …`. */
export function describeCores(spent: Spent, limit: number | null): string {
  const cores = (value: number) => (value / spent.seconds).toFixed(2);
  const replicas = limit
    ? `replicas ${cores(spent.service)} of ${limit.toFixed(2)} (throttled in ${spent.periods ? ((100 * spent.throttled) / spent.periods).toFixed(0) : 0}% of periods)`
    : `service ${cores(spent.service)}`;
  return (
    `cores: ${replicas}, gateway ${cores(spent.gateway)}, PostgreSQL ${cores(spent.postgres)}, Redis ${cores(spent.redis)}, ` +
    `load generator ${cores(spent.loadGenerator)}, rest of the topology ${cores(spent.rest)}; machine ${cores(spent.machine)} of ${availableParallelism()} busy; ` +
    `${(spent.statements / spent.seconds).toFixed(0)} statements/s, ${(spent.redisCommands / spent.seconds).toFixed(0)} Redis commands/s`
  );
}

/**
 * Which tier held a row back: the replicas where they used their limit; else, where the machine's
 * cores were busy, the biggest user of them besides the replicas; else PostgreSQL or Redis where
 * one of them kept a core busy (both serve from one process or one core at a time here).
 */
export function saturatedTier(spent: Spent, limit: number, cores: number): string {
  const rate = (value: number) => value / spent.seconds;
  if (rate(spent.service) >= 0.9 * limit)
    return `the replicas (${rate(spent.service).toFixed(2)} of ${limit.toFixed(2)} CPU)`;
  const others = {
    'the load generator': rate(spent.loadGenerator),
    'the gateway': rate(spent.gateway),
    PostgreSQL: rate(spent.postgres),
    Redis: rate(spent.redis),
    'the rest of the topology': rate(spent.rest),
  };
  const [name, used] = Object.entries(others).sort((a, b) => b[1] - a[1])[0] as [string, number];
  if (rate(spent.machine) >= 0.9 * cores)
    return `the machine's ${cores} cores (${rate(spent.machine).toFixed(2)} busy), most of them besides the replicas ${name} (${used.toFixed(2)})`;
  if (rate(spent.redis) >= 0.9) return `Redis (${rate(spent.redis).toFixed(2)} of its one core)`;
  return `none measured: replicas ${rate(spent.service).toFixed(2)} of ${limit.toFixed(2)}, machine ${rate(spent.machine).toFixed(2)} of ${cores} busy (latency-bound: more connections)`;
}
