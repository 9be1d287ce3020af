// The platform on a Redis Cluster (REDIS_CLUSTER_NODES) of 3 masters and 3 replicas: the flows that
// live in Redis answer as on one server, and its keys really are spread over the masters.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { needsRedisBinaries, type RedisCluster, redisCli, startRedisCluster } from '@devplat/test/redis-topologies';
import { redisTopologyFlows, topologyEnv } from '@devplat/test/redis-topology-suite';

describe('the platform on a Redis Cluster', { skip: needsRedisBinaries }, () => {
  let cluster: RedisCluster;
  let platform: TestPlatform;
  before(async () => {
    cluster = await startRedisCluster();
    platform = await startTestPlatform(topologyEnv({ REDIS_CLUSTER_NODES: cluster.nodes }));
  });
  after(async () => {
    await platform?.close();
    await cluster?.stop();
  });

  for (const [name, flow] of Object.entries(redisTopologyFlows)) test(name, () => flow(platform));

  test('after those flows every master holds some of the platform keys', async () => {
    const masters = await cluster.masters();
    assert.equal(masters.length, 3);
    const sizes = await Promise.all(masters.map(async (port) => Number(await redisCli(port, 'DBSIZE'))));
    assert.ok(
      sizes.every((size) => size > 0),
      `keys per master: ${sizes.join(', ')}`,
    );
  });
});
