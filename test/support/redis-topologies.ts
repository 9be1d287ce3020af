// Real Redis topologies on loopback for a test file: a Redis Cluster (3 masters, 3 replicas) and a
// Sentinel deployment (one primary, its replicas, three sentinels), each in a temporary directory
// of its own, on ports from freePort, torn down (processes ended, directory removed) by stop(), or
// at once when starting fails. Readiness is polled within a bound, never waited for blindly.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './process.ts';

const run = promisify(execFile);
const host = '127.0.0.1';

/** Why the Redis topology tests cannot run here, or false: they need Debian's redis-server and redis-cli. */
export const needsRedisBinaries = ['redis-server', 'redis-cli'].every((binary) => onPath(binary))
  ? false
  : 'needs redis-server and redis-cli';

function onPath(binary: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && existsSync(join(dir, binary)));
}

/** `redis-cli -p port args…`, its output trimmed; throws when it fails or takes over 2 s. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  const { stdout } = await run('redis-cli', ['-h', host, '-p', String(port), ...args], { timeout: 2_000 });
  return stdout.trim();
}

/** A `field:value` line of an INFO section or CLUSTER INFO answer. */
export function infoField(info: string, field: string): string | undefined {
  return new RegExp(`^${field}:(.*)$`, 'm').exec(info)?.[1]?.trim();
}

/** Polls `check` every 100 ms until it holds; throws naming `what` and its last answer after `timeoutMs`. */
export async function pollUntil(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown = 'not checked';
  for (;;) {
    try {
      if (await check()) return;
      last = 'not yet';
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms (last: ${last})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface RedisProcess {
  port: number;
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
}

/**
 * The processes of one topology and its directory. Children are also killed if this test process
 * exits without stopping them, so a failed file never leaves Redis servers behind.
 */
class Processes {
  readonly dir = mkdtempSync(join(tmpdir(), 'devplat-redis-'));
  readonly all: RedisProcess[] = [];
  private readonly onExit = () => {
    for (const each of this.all) each.child.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  };

  constructor() {
    process.once('exit', this.onExit);
  }

  start(command: string, port: number, args: string[]): RedisProcess {
    const child = spawn(command, args, { cwd: this.dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const started = { port, child, output: () => output, exited };
    this.all.push(started);
    return started;
  }

  /** A redis-server on `port` with its working directory under ours; `args` add to or override the defaults. */
  server(port: number, args: string[]): RedisProcess {
    const dir = join(this.dir, String(port));
    mkdirSync(dir);
    return this.start('redis-server', port, [
      '--port',
      String(port),
      '--bind',
      host,
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      // A replica's full sync starts at once, not after the default 5 s wait for more replicas.
      '--repl-diskless-sync-delay',
      '0',
      ...args,
    ]);
  }

  byPort(port: number): RedisProcess {
    const found = this.all.find((each) => each.port === port);
    if (!found) throw new Error(`no Redis process on port ${port}`);
    return found;
  }

  /** Waits until every given process answers PING; names the one that did not, with its output. */
  async answering(processes: RedisProcess[]): Promise<void> {
    for (const each of processes) {
      await pollUntil(
        `Redis on port ${each.port} answering PING`,
        async () => {
          if (each.child.exitCode !== null) throw new Error(`exited ${each.child.exitCode}: ${each.output()}`);
          return (await redisCli(each.port, 'PING')) === 'PONG';
        },
        15_000,
      );
    }
  }

  /** Ends every process (SIGTERM, then SIGKILL after 5 s) and removes the directory. */
  async stop(): Promise<void> {
    await Promise.all(
      this.all.map(async (each) => {
        if (each.child.exitCode !== null || each.child.signalCode !== null) return;
        each.child.kill('SIGCONT'); // one a test froze must be able to handle SIGTERM
        each.child.kill('SIGTERM');
        const timer = setTimeout(() => each.child.kill('SIGKILL'), 5_000);
        await each.exited;
        clearTimeout(timer);
      }),
    );
    process.off('exit', this.onExit);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** Runs `start` and stops everything if it throws, so a failed start leaves nothing behind. */
  async guard<T>(start: () => Promise<T>): Promise<T> {
    try {
      return await start();
    } catch (error) {
      const outputs = this.all.map((each) => `--- port ${each.port}\n${each.output().slice(-2_000)}`).join('\n');
      await this.stop();
      throw new Error(`${(error as Error).message}\n${outputs}`);
    }
  }
}

async function freePorts(count: number): Promise<number[]> {
  const ports: number[] = [];
  for (let index = 0; index < count; index++) ports.push(await freePort());
  return ports;
}

export interface RedisCluster {
  /** For REDIS_CLUSTER_NODES: `127.0.0.1:port,…` over every node. */
  nodes: string;
  /** The ports of the nodes that are masters now. */
  masters(): Promise<number[]>;
  stop(): Promise<void>;
}

/** How many replicas a master's INFO replication lists as online (past their first sync). */
const onlineReplicas = (info: string) =>
  info.split('\n').filter((line) => /^slave\d+:.*state=online/.test(line)).length;

/** A node's CLUSTER NODES as a map of the slots: each master's address and slot ranges, sorted. */
const slotMap = (nodes: string) =>
  nodes
    .trim()
    .split('\n')
    .map((line) => line.split(' '))
    .filter((fields) => (fields[2] ?? '').includes('master'))
    .map((fields) => `${(fields[1] ?? '').split('@')[0]} ${fields.slice(8).join(' ')}`)
    .sort()
    .join('\n');

/**
 * A Redis Cluster of 3 masters, each with `replicasPerMaster` replicas (one by default), ready: every
 * node sees `cluster_state:ok` and every master has its replicas online.
 */
export async function startRedisCluster({ replicasPerMaster = 1 } = {}): Promise<RedisCluster> {
  const processes = new Processes();
  return processes.guard(async () => {
    // Each node's bus port is picked too (cluster-port), rather than the default port + 10000, which
    // could fall in the kernel's ephemeral range or on another file's port.
    const size = 3 * (1 + replicasPerMaster);
    const [ports, busPorts] = [await freePorts(size), await freePorts(size)];
    const nodes = ports.map((port, index) =>
      processes.server(port, [
        '--cluster-enabled',
        'yes',
        '--cluster-port',
        String(busPorts[index]),
        '--cluster-config-file',
        join(processes.dir, `nodes-${port}.conf`),
        '--cluster-node-timeout',
        '2000',
      ]),
    );
    await processes.answering(nodes);
    await run(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...ports.map((port) => `${host}:${port}`),
        '--cluster-replicas',
        String(replicasPerMaster),
        '--cluster-yes',
      ],
      { timeout: 60_000 },
    );
    const masters = async () => {
      const roles = await Promise.all(ports.map(async (port) => ({ port, role: await redisCli(port, 'ROLE') })));
      return roles.filter(({ role }) => role.split('\n')[0] === 'master').map(({ port }) => port);
    };
    await pollUntil('every node of the cluster at cluster_state:ok', async () => {
      const states = await Promise.all(
        ports.map(async (port) => infoField(await redisCli(port, 'CLUSTER', 'INFO'), 'cluster_state')),
      );
      return states.every((state) => state === 'ok');
    });
    // Online, not only connected: a replica still in its first sync counts as connected, yet
    // acknowledges no WAIT, so a durable write in those moments would be refused.
    await pollUntil('3 masters, each with its replicas online', async () => {
      const current = await masters();
      const online = await Promise.all(
        current.map(async (port) => onlineReplicas(await redisCli(port, 'INFO', 'replication'))),
      );
      return current.length === 3 && online.every((count) => count === replicasPerMaster);
    });
    // Every node with the same map of who serves which slots: a client that loads its map from a
    // node still behind would send a first write to the wrong master (MOVED).
    await pollUntil('every node with the same map of the slots', async () => {
      const maps = await Promise.all(ports.map(async (port) => slotMap(await redisCli(port, 'CLUSTER', 'NODES'))));
      return maps.every((map) => map === maps[0]);
    });
    return {
      nodes: ports.map((port) => `${host}:${port}`).join(','),
      masters,
      stop: () => processes.stop(),
    };
  });
}

export interface RedisSentinel {
  /** For REDIS_SENTINELS: `127.0.0.1:port,…` over the three sentinels. */
  sentinels: string;
  /** For REDIS_SENTINEL_MASTER. */
  masterName: string;
  /** The primary's port as the sentinels report it now. */
  primaryPort(): Promise<number>;
  /** SIGKILLs the current primary's process; resolves with its port once it has died. */
  killPrimary(): Promise<number>;
  /** Polls until every sentinel reports a primary other than `previous` and it answers as master; resolves with its port. */
  waitForFailover(previous: number, timeoutMs?: number): Promise<number>;
  /**
   * Cuts the current primary's replicas off at a clean point: they hold and have acknowledged every
   * write so far, and nothing written from now on reaches them or is acknowledged. Resolves with
   * `resume`, which lets them run again and, if the primary still lives, resolves once they have
   * caught up with it.
   */
  freezeReplicas(): Promise<() => Promise<void>>;
  stop(): Promise<void>;
}

/**
 * One primary, `replicas` replicas of it (one by default) and three sentinels monitoring it
 * (quorum 2, down after `downAfterMs`, 1 s by default, failover timeout 3 s), ready: every sentinel
 * sees the primary, every replica and the two other sentinels.
 */
export async function startRedisSentinel({
  replicas = 1,
  downAfterMs = 1_000,
}: {
  replicas?: number;
  downAfterMs?: number;
} = {}): Promise<RedisSentinel> {
  const processes = new Processes();
  const masterName = 'devplat';
  return processes.guard(async () => {
    const [primaryPort, ...replicaPorts] = await freePorts(1 + replicas);
    const servers = [
      processes.server(primaryPort as number, []),
      ...replicaPorts.map((port) => processes.server(port, ['--replicaof', host, String(primaryPort)])),
    ];
    await processes.answering(servers);
    await pollUntil('every replica linked to the primary', async () => {
      const links = await Promise.all(
        replicaPorts.map(async (port) => infoField(await redisCli(port, 'INFO', 'replication'), 'master_link_status')),
      );
      return links.every((status) => status === 'up');
    });

    const sentinelPorts = await freePorts(3);
    const sentinels = sentinelPorts.map((port) => {
      // Sentinel rewrites its configuration file as it learns the deployment: one file each.
      const file = join(processes.dir, `sentinel-${port}.conf`);
      writeFileSync(
        file,
        [
          `port ${port}`,
          `bind ${host}`,
          `dir ${processes.dir}`,
          `sentinel monitor ${masterName} ${host} ${primaryPort} 2`,
          `sentinel down-after-milliseconds ${masterName} ${downAfterMs}`,
          `sentinel failover-timeout ${masterName} 3000`,
          `sentinel parallel-syncs ${masterName} 1`,
          '',
        ].join('\n'),
      );
      return onPath('redis-sentinel')
        ? processes.start('redis-sentinel', port, [file])
        : processes.start('redis-server', port, [file, '--sentinel']);
    });
    await processes.answering(sentinels);
    await pollUntil('every sentinel sees the primary, its replicas and the other sentinels', async () => {
      const views = await Promise.all(sentinelPorts.map((port) => sentinelMaster(port, masterName)));
      return views.every(
        (view) =>
          view.flags === 'master' && view['num-slaves'] === String(replicas) && view['num-other-sentinels'] === '2',
      );
    });

    const primary = async () => {
      const [, port] = (
        await redisCli(sentinelPorts[0] as number, 'SENTINEL', 'get-master-addr-by-name', masterName)
      ).split('\n');
      return Number(port);
    };
    return {
      sentinels: sentinelPorts.map((port) => `${host}:${port}`).join(','),
      masterName,
      primaryPort: primary,
      async killPrimary() {
        const port = await primary();
        const victim = processes.byPort(port);
        victim.child.kill('SIGKILL');
        await victim.exited;
        return port;
      },
      async waitForFailover(previous, timeoutMs = 30_000) {
        let promoted = 0;
        await pollUntil(
          `a failover away from port ${previous}`,
          async () => {
            const reported = new Set<string>();
            for (const port of sentinelPorts) {
              // A sentinel that cannot answer does not block the others' word.
              const answer = await redisCli(port, 'SENTINEL', 'get-master-addr-by-name', masterName).catch(() => '');
              if (answer) reported.add(answer.split('\n')[1] as string);
            }
            if (reported.size !== 1) return false;
            promoted = Number([...reported][0]);
            return promoted !== previous && (await redisCli(promoted, 'ROLE')).split('\n')[0] === 'master';
          },
          timeoutMs,
        );
        return promoted;
      },
      async freezeReplicas() {
        const port = await primary();
        const replicasOf = async () => {
          const info = await redisCli(port, 'INFO', 'replication');
          return {
            written: Number(infoField(info, 'master_repl_offset')),
            replicas: [...info.matchAll(/^slave\d+:ip=[^,]+,port=(\d+),state=(\w+),offset=(\d+)/gm)].map((match) => ({
              port: Number(match[1]),
              online: match[2] === 'online',
              acknowledged: Number(match[3]),
            })),
          };
        };
        // Frozen at a clean cut: with client writes paused, every write so far is acknowledged
        // before the replicas stop; then the primary drops their links (a stopped process still
        // receives into its socket buffers), so nothing written after the cut is ever sent to them.
        await redisCli(port, 'CLIENT', 'PAUSE', '10000', 'WRITE');
        let frozen: RedisProcess[] = [];
        try {
          await pollUntil(
            'the replicas acknowledging every write',
            async () => {
              const { written, replicas } = await replicasOf();
              frozen = replicas.map((replica) => processes.byPort(replica.port));
              return replicas.length > 0 && replicas.every((replica) => replica.acknowledged >= written);
            },
            5_000,
          );
          for (const each of frozen) each.child.kill('SIGSTOP');
          await redisCli(port, 'CLIENT', 'KILL', 'TYPE', 'replica');
        } finally {
          await redisCli(port, 'CLIENT', 'UNPAUSE');
        }
        return async () => {
          for (const each of frozen) each.child.kill('SIGCONT');
          const alive = processes.byPort(port).child;
          if (alive.exitCode !== null || alive.signalCode !== null) return;
          await pollUntil('the resumed replicas caught up with the primary', async () => {
            const { replicas } = await replicasOf();
            return replicas.length === frozen.length && replicas.every((replica) => replica.online);
          });
        };
      },
      stop: () => processes.stop(),
    };
  });
}

/** SENTINEL MASTER's answer as a record (its lines alternate field and value). */
async function sentinelMaster(port: number, name: string): Promise<Record<string, string>> {
  const lines = (await redisCli(port, 'SENTINEL', 'MASTER', name)).split('\n');
  const view: Record<string, string> = {};
  for (let index = 0; index + 1 < lines.length; index += 2) view[lines[index] as string] = lines[index + 1] as string;
  return view;
}

// Faults by port and process id, for a long run (bench/soak) that kills, restarts and freezes the
// servers of a topology above more than once: a server started again here is not among the
// topology's own processes, so these find every server through its INFO answer, never by child.

/** What a killed redis-server ran with, to start it again on the same port, directory and cluster files. */
export interface RedisServerSettings {
  port: number;
  args: string[];
}

/** A redis-server started again after a kill; SIGKILLed if this process exits first. */
export interface RestartedRedis {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** The process id of the redis-server on `port` (INFO server). */
export async function redisServerPid(port: number): Promise<number> {
  const pid = Number(infoField(await redisCli(port, 'INFO', 'server'), 'process_id'));
  if (!Number.isInteger(pid) || pid <= 0) throw new Error(`Redis on port ${port} gave no process id`);
  return pid;
}

/** The ports of the replicas the primary on `port` reports (INFO replication), online or not. */
export async function replicaPortsOf(port: number): Promise<number[]> {
  const info = await redisCli(port, 'INFO', 'replication');
  return [...info.matchAll(/^slave\d+:ip=[^,]+,port=(\d+)/gm)].map((match) => Number(match[1]));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGKILLs the redis-server on `port`, its settings read first; resolves with them once it is gone. */
export async function killRedisServer(port: number): Promise<RedisServerSettings> {
  const pid = await redisServerPid(port);
  const config = async (name: string) => (await redisCli(port, 'CONFIG', 'GET', name)).split('\n')[1] ?? '';
  const args = ['--port', String(port), '--bind', host, '--dir', await config('dir')];
  args.push('--save', '', '--appendonly', 'no', '--repl-diskless-sync-delay', '0');
  if ((await config('cluster-enabled')) === 'yes') {
    // Its nodes file keeps its node id: it rejoins as the same node (a replica of the promoted one).
    for (const name of ['cluster-enabled', 'cluster-port', 'cluster-config-file', 'cluster-node-timeout']) {
      args.push(`--${name}`, await config(name));
    }
  }
  process.kill(pid, 'SIGKILL');
  await pollUntil(`Redis on port ${port} (pid ${pid}) gone`, async () => !isAlive(pid), 5_000);
  return { port, args };
}

/** Starts a killed redis-server again, as a replica of `replicaOf` where given; resolves once it answers PING. */
export async function restartRedisServer(
  settings: RedisServerSettings,
  { replicaOf }: { replicaOf?: number } = {},
): Promise<RestartedRedis> {
  const args = [...settings.args, ...(replicaOf ? ['--replicaof', host, String(replicaOf)] : [])];
  const child = spawn('redis-server', args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  const stop = async () => {
    process.off('exit', onExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGCONT');
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    await pollUntil(
      `the restarted Redis on port ${settings.port} answering PING`,
      async () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}`);
        return (await redisCli(settings.port, 'PING')) === 'PONG';
      },
      15_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return { port: settings.port, pid: child.pid as number, stop };
}

/** SIGSTOPs the redis-servers on these ports; resolves with `resume`, which SIGCONTs them. */
export async function freezeRedisServers(ports: number[]): Promise<() => Promise<void>> {
  const pids = await Promise.all(ports.map((port) => redisServerPid(port)));
  for (const pid of pids) process.kill(pid, 'SIGSTOP');
  return async () => {
    for (const pid of pids) if (isAlive(pid)) process.kill(pid, 'SIGCONT');
  };
}

/** The ports of a cluster's nodes (REDIS_CLUSTER_NODES' form) that answer ROLE as master now. */
export async function clusterMasterPorts(nodes: string): Promise<number[]> {
  const ports = nodes.split(',').map((node) => Number(node.split(':')[1]));
  const roles = await Promise.all(
    ports.map(async (port) => ({ port, role: await redisCli(port, 'ROLE').catch(() => '') })),
  );
  return roles.filter(({ role }) => role.split('\n')[0] === 'master').map(({ port }) => port);
}

/** Polls until every node but `down` reports cluster_state:ok and 3 masters answer, none of them `down`. */
export async function waitForClusterFailover(nodes: string, down: number, timeoutMs = 30_000): Promise<void> {
  const others = nodes
    .split(',')
    .map((node) => Number(node.split(':')[1]))
    .filter((port) => port !== down);
  await pollUntil(
    `the cluster serving every slot without port ${down}`,
    async () => {
      const states = await Promise.all(
        others.map(async (port) => infoField(await redisCli(port, 'CLUSTER', 'INFO'), 'cluster_state')),
      );
      const masters = await clusterMasterPorts(nodes);
      return states.every((state) => state === 'ok') && masters.length === 3 && !masters.includes(down);
    },
    timeoutMs,
  );
}
