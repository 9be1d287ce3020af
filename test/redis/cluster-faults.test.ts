// A Redis Cluster master killed under refresh load, on the shape the docs recommend: three masters,
// each with two replicas, so the promoted replica still has one to acknowledge the writes that wait
// for it. Twenty players' refresh-token families are spread over the masters' slots; each client
// retries its current token after a 503. No family may end, and every operation is served again
// within 5 s of the promotion.
import { after, before, describe, test } from 'node:test';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { faultLoad } from '@devplat/test/redis-fault-load';
import {
  killRedisServer,
  needsRedisBinaries,
  type RedisCluster,
  startRedisCluster,
  waitForClusterFailover,
} from '@devplat/test/redis-topologies';
import { topologyEnv } from '@devplat/test/redis-topology-suite';

const players = 20;
/** How soon after the promotion every operation must be served again. */
const recoveryMs = 5_000;

describe('a Redis Cluster master killed under refresh load', { skip: needsRedisBinaries }, () => {
  let cluster: RedisCluster;
  let platform: TestPlatform;
  let load: Awaited<ReturnType<typeof faultLoad>>;
  before(async () => {
    cluster = await startRedisCluster({ replicasPerMaster: 2 });
    platform = await startTestPlatform(topologyEnv({ REDIS_CLUSTER_NODES: cluster.nodes }));
    load = await faultLoad(platform);
  });
  after(async () => {
    await platform?.close();
    await cluster?.stop();
  });

  test('no family ends, every operation is served again within 5 s of the promotion', () =>
    load.failover(players, {
      kill: async () => {
        const [master] = await cluster.masters();
        await killRedisServer(master as number);
        return master as number;
      },
      promoted: (killed) => waitForClusterFailover(cluster.nodes, killed),
      recoveryMs,
    }));
});
