// npm run topology: the split platform behind nginx on this machine's PostgreSQL and Redis (their
// own database and Redis index), one process per replica, all in this process's process group.
// Ctrl-C or SIGTERM stops everything it started, and so does the crash of any one of them.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { generateSigningKey } from '@devplat/config';
import { cpuLimits, replicaCounts } from './command-line.ts';
import { describeThrottling } from './cpu-limits.ts';
import { prepareDatabase } from './database.ts';
import { repoRoot, type ServiceName } from './replica.ts';
import { defaultReplicas, type ReplicaCounts, type SharedSecrets, startTopology } from './topology.ts';

const usage = `usage: npm run topology -- [--port N] [--replicas auth=N,api=N,worker=N,console=N] [--cpu SERVICE=CPUS,...]
  nginx on 127.0.0.1:N ({base_url}), 127.0.0.2:N+1 (player client), 127.0.0.3:N+2 (console);
  2 auth, 2 api, 2 worker and 1 console process (--replicas changes any of them) and the contract
  mock behind it; one admin API process beside it on loopback, never behind nginx (operator
  tokens: .data/topology/admin-tokens). --cpu gives each process of a service a CPU limit, as a
  Kubernetes limit does (the kernel's CPU quota on a control group of its own; needs root), for
  example --cpu api=0.2,auth=0.2; on stop, how often each was throttled.
  PostgreSQL: DATABASE_URL's server (default postgresql://postgres@127.0.0.1:5432/postgres),
  database TOPOLOGY_DATABASE (default devplat_topology). Redis: REDIS_URL's server (default
  redis://127.0.0.1:6379), index TOPOLOGY_REDIS_DB (default 1). Secrets: .data/topology/secrets.json.
`;

let port = 8000;
let replicas: Partial<ReplicaCounts> = {};
let limits: Partial<Record<ServiceName, number>> = {};
try {
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      replicas: { type: 'string' },
      cpu: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values.help) {
    process.stdout.write(usage);
    process.exit(0);
  }
  if (values.port !== undefined) port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65533)
    throw new Error(`--port must be a port number (got "${values.port}")`);
  if (values.replicas !== undefined) replicas = replicaCounts(values.replicas);
  if (values.cpu !== undefined) limits = cpuLimits(values.cpu);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n${usage}`);
  process.exit(64);
}

const dataDir = join(repoRoot, '.data/topology');
mkdirSync(dataDir, { recursive: true });

/** The same secrets every run, so subs, sessions and tokens outlive a restart. */
function topologySecrets(): SharedSecrets {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  const secrets = {
    SIGNING_KEYS: JSON.stringify({ keys: [generateSigningKey()] }),
    PAIRWISE_SECRET: randomBytes(32).toString('base64url'),
    COOKIE_KEYS: randomBytes(32).toString('base64url'),
  };
  writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
  return secrets;
}

const started = performance.now();
const database = process.env.TOPOLOGY_DATABASE ?? 'devplat_topology';
const redisDb = process.env.TOPOLOGY_REDIS_DB ?? '1';
const redisUrl = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
redisUrl.pathname = `/${redisDb}`;
let topology: Awaited<ReturnType<typeof startTopology>>;
try {
  const databaseUrl = await prepareDatabase(
    process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres',
    database,
  );
  topology = await startTopology({
    databaseUrl,
    redisUrl: redisUrl.href,
    secrets: topologySecrets(),
    // One directory per port: two topologies (on other ports) can run at once, as the tests do.
    runtimeDir: join(dataDir, `gateway-${port}`),
    adminTokensFile: join(dataDir, 'admin-tokens'),
    replicas,
    cpuLimits: limits,
    gatewayPorts: { base: port, playerClient: port + 1, console: port + 2 },
    // A SIGTERM to the whole process group (a supervisor's) drains each process after this delay:
    // 1 s, not 5, keeps that stop within a few seconds. No one rolls these replicas.
    env: { SHUTDOWN_DELAY_MS: process.env.SHUTDOWN_DELAY_MS ?? '1000' },
  });
} catch (error) {
  process.stderr.write(`the topology could not start: ${(error as Error).message}\n`);
  process.exit(1);
}

const urls = Object.entries(topology.urls).map(([name, url]) => `  ${name.padEnd(14)} ${url}`);
const processes = topology.replicas.map((each) => {
  const ports = Object.entries(each.ports)
    .filter(([name]) => name !== 'management')
    .map(([name, value]) => `${name} ${value}`)
    .join(', ');
  const limit = each.cpuLimit ? `, CPU limit ${each.cpuLimit.cpus}` : '';
  return `  ${each.name.padEnd(10)} pid ${String(each.pid()).padEnd(8)} ${ports ? `${ports}, ` : ''}management ${each.management}${limit}`;
});
const counts = { ...defaultReplicas, ...replicas };
const shape =
  `${counts.auth} auth, ${counts.api} api, ${counts.worker} worker, ${counts.console} console; ` +
  (topology.cpuLimits ? `CPU limits through ${topology.cpuLimits}` : 'no CPU limits');
process.stdout.write(
  `Developer Platform topology is ready in ${Math.round(performance.now() - started)} ms ` +
    `(sandbox, PostgreSQL database ${database}, Redis index ${redisDb}; ${shape}):\n${urls.join('\n')}\n` +
    `  gateway    pid ${topology.gateway.pid()} (nginx, ${topology.gateway.configFile}; ` +
    `workers ${topology.gateway.workers().join(', ')})\n${processes.join('\n')}\n` +
    'Press Ctrl-C to stop.\n',
);

// However this process ends, nothing it started outlives it.
process.on('exit', () => topology.kill());
// A closed terminal or pipe must not end this process before it has stopped what it started.
process.stdout.on('error', () => {});

void topology.crashed.then((crash) => {
  process.stderr.write(`topology: stopped, as ${crash}\n`);
  process.exit(1);
});

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    if (stopping) {
      // A second Ctrl-C: at once.
      process.exit(130);
    }
    stopping = true;
    process.stdout.write('stopping the topology…\n');
    // A Ctrl-C reaches the whole process group: every process is draining already, at once, and a
    // second SIGINT would cut that short; SIGTERM leaves it be (and drains one the Ctrl-C missed).
    // A SIGTERM (a supervisor's, or npm's wrapper passing one on) may come to this process alone:
    // the others drain at once.
    void topology.stop(signal === 'SIGINT' ? 'SIGTERM' : 'SIGINT').then(() => {
      for (const { name, cpus, ...throttling } of topology.throttling())
        process.stdout.write(`  ${name.padEnd(10)} ${describeThrottling(cpus, throttling)}\n`);
      process.stdout.write('stopped\n');
      process.exit(0);
    });
  });
}
