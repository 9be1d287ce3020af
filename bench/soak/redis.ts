// The soak's Redis, Sentinel (a primary, 2 replicas, 3 sentinels) or Cluster (3 masters, 3
// replicas), and its faults: the primary (a master) SIGKILLed, then started again as a replica;
// the replicas frozen (SIGSTOP) for a while, then let run (SIGCONT).
import {
  clusterMasterPorts,
  freezeRedisServers,
  killRedisServer,
  pollUntil,
  type RestartedRedis,
  redisCli,
  replicaPortsOf,
  restartRedisServer,
  startRedisCluster,
  startRedisSentinel,
  waitForClusterFailover,
} from '@devplat/test/redis-topologies';
import type { Random } from './random.ts';

export type RedisMode = 'sentinel' | 'cluster';

export interface SoakRedis {
  mode: RedisMode;
  env: Record<string, string>;
  describe: string;
  /** SIGKILLs the primary (a master), waits for the failover, starts it again as a replica; says what it did. */
  killPrimary(): Promise<string>;
  /** Freezes every replica for `ms`; says which. */
  freezeReplicas(ms: number): Promise<string>;
  /**
   * Who is primary (which nodes are masters) now: polled while the soak runs, so that a failover
   * nobody asked for (Sentinel's own, on a busy machine) shows as a fault window of its own.
   */
  roles(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Polls `redis.roles()` every 500 ms while no planned fault changes them (`planned()`), and reports
 * each change it did not expect: when it was last seen as before, when seen changed, and how.
 */
export function watchRoles(
  redis: SoakRedis,
  planned: () => boolean,
  report: (change: { start: number; end: number; detail: string }) => void,
  now: () => number,
): () => void {
  let last: { roles: string; at: number } | null = null;
  let stopped = false;
  void (async () => {
    while (!stopped) {
      const roles = await redis.roles().catch(() => null);
      const at = now();
      if (planned() || roles === null) last = planned() ? null : last;
      else if (last && roles !== last.roles) {
        report({ start: last.at, end: at, detail: `${last.roles} → ${roles}` });
        last = { roles, at };
      } else last = { roles, at };
      await sleep(500);
    }
  })();
  return () => {
    stopped = true;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function replicaLinked(port: number): Promise<boolean> {
  const info = await redisCli(port, 'INFO', 'replication');
  return /^role:slave$/m.test(info) && /^master_link_status:up$/m.test(info);
}

export async function startSoakRedis(mode: RedisMode, random: Random): Promise<SoakRedis> {
  const restarted: RestartedRedis[] = [];
  const stopRestarted = () => Promise.all(restarted.map((each) => each.stop()));
  if (mode === 'sentinel') {
    // Down after 3 s, not the tests' quick 1 s: on a machine busy with other work (CI runs this
    // beside other tests) a primary stalled for a second was failed over unasked, and a write one
    // replica acknowledged can be lost that way (docs/deploying.md, "WAIT is not consensus").
    const sentinel = await startRedisSentinel({ replicas: 2, downAfterMs: 3_000 });
    return {
      mode,
      env: { REDIS_SENTINELS: sentinel.sentinels, REDIS_SENTINEL_MASTER: sentinel.masterName },
      describe: 'Redis with Sentinel (a primary, 2 replicas, 3 sentinels)',
      async killPrimary() {
        const started = Date.now();
        const port = await sentinel.primaryPort();
        const settings = await killRedisServer(port);
        const promoted = await sentinel.waitForFailover(port);
        const failedOver = Date.now() - started;
        restarted.push(await restartRedisServer(settings, { replicaOf: promoted }));
        await pollUntil(`port ${port} a linked replica again`, () => replicaLinked(port), 20_000);
        return `primary :${port} SIGKILLed; :${promoted} promoted after ${failedOver} ms; :${port} back as its replica`;
      },
      async freezeReplicas(ms) {
        const replicas = await replicaPortsOf(await sentinel.primaryPort());
        const resume = await freezeRedisServers(replicas);
        await sleep(ms);
        await resume();
        return `replicas ${replicas.map((port) => `:${port}`).join(' ')} SIGSTOPped ${ms} ms`;
      },
      roles: async () => `primary :${await sentinel.primaryPort()}`,
      async stop() {
        await stopRestarted();
        await sentinel.stop();
      },
    };
  }
  const cluster = await startRedisCluster();
  const ports = cluster.nodes.split(',').map((node) => Number(node.split(':')[1]));
  return {
    mode,
    env: { REDIS_CLUSTER_NODES: cluster.nodes },
    describe: 'Redis Cluster (3 masters, 3 replicas)',
    async killPrimary() {
      const started = Date.now();
      const port = random.pick(await clusterMasterPorts(cluster.nodes));
      const settings = await killRedisServer(port);
      await waitForClusterFailover(cluster.nodes, port);
      const failedOver = Date.now() - started;
      // Its nodes file makes it the same node again, which the cluster turns into the promoted one's replica.
      restarted.push(await restartRedisServer(settings));
      await pollUntil(`port ${port} a linked replica again`, () => replicaLinked(port), 30_000);
      return `master :${port} SIGKILLed; its replica promoted after ${failedOver} ms; :${port} back as a replica`;
    },
    async freezeReplicas(ms) {
      const masters = await clusterMasterPorts(cluster.nodes);
      const replicas = ports.filter((port) => !masters.includes(port));
      const resume = await freezeRedisServers(replicas);
      await sleep(ms);
      await resume();
      return `replicas ${replicas.map((port) => `:${port}`).join(' ')} SIGSTOPped ${ms} ms`;
    },
    roles: async () =>
      `masters ${(await clusterMasterPorts(cluster.nodes))
        .sort()
        .map((port) => `:${port}`)
        .join(' ')}`,
    async stop() {
      await stopRestarted();
      await cluster.stop();
    },
  };
}
