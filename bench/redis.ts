// BENCH_REDIS=cluster|sentinel: the benchmark's servers on a Redis of that topology, started on
// loopback for the run (a 3-master, 3-replica Cluster, or a primary, two replicas and three
// sentinels; test/support/redis-topologies.ts) and stopped after it.
import { startRedisCluster, startRedisSentinel } from '@devplat/test/redis-topologies';

export interface BenchRedis {
  /** The settings the servers get, and a line saying what they run on. */
  env: Record<string, string>;
  describe: string;
  stop(): Promise<void>;
}

export async function benchRedis(kind: string | undefined): Promise<BenchRedis | null> {
  if (!kind) return null;
  if (kind === 'cluster') {
    const cluster = await startRedisCluster();
    return {
      env: { REDIS_CLUSTER_NODES: cluster.nodes },
      describe: 'Redis Cluster (3 masters, 3 replicas, REDIS_WAIT_REPLICAS=1)',
      stop: () => cluster.stop(),
    };
  }
  if (kind === 'sentinel') {
    const sentinel = await startRedisSentinel({ replicas: 2 });
    return {
      env: { REDIS_SENTINELS: sentinel.sentinels, REDIS_SENTINEL_MASTER: sentinel.masterName },
      describe: 'Redis with Sentinel (a primary, 2 replicas, 3 sentinels, REDIS_WAIT_REPLICAS=1)',
      stop: () => sentinel.stop(),
    };
  }
  throw new Error(`BENCH_REDIS is cluster or sentinel (got "${kind}")`);
}
