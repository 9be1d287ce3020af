// A Redis Cluster master killed under refresh load, on the shape the docs recommend: three masters,
// each with two replicas, so the promoted replica still has one to acknowledge the writes that wait
// for it. Twenty players' refresh-token families are spread over the masters' slots; each client
// retries its current token after a 503. No family may end, and every operation is served again
// within 5 s of the promotion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { faultLoad } from '@devplat/test/redis-fault-load';
import {
  killRedisServer,
  needsRedisBinaries,
  pollUntil,
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

  test('no family ends, every operation is served again within 5 s of the promotion', async () => {
    const { chains, probes } = await load.start(players);
    let killedAt = 0;
    let promotedAt = 0;
    try {
      await pollUntil('the chains refreshing', async () => chains.refreshed() > 2 * players, 20_000);
      const [victim] = await cluster.masters();
      await killRedisServer(victim as number);
      killedAt = Date.now();
      await waitForClusterFailover(cluster.nodes, victim as number);
      promotedAt = Date.now();
      await pollUntil(
        'every chain and every probe served after the promotion',
        async () => load.allServedSince(chains.chains, probes.answers, promotedAt),
        recoveryMs + 10_000,
      );
    } finally {
      await chains.stop();
      await probes.stop();
    }
    await load.assertNoFamilyEnded(chains.chains);
    const hit = chains.chains.filter((chain) => chain.answers.some((a) => a.at > killedAt && a.status !== 200));
    const served = load.servedAfter(chains.chains, probes.answers, promotedAt);
    process.stdout.write(
      `# killed to promoted ${promotedAt - killedAt} ms, ${hit.length} of ${players} chains met the fault; ` +
        `served again after the promotion: ${served.map(({ what, ms }) => `${what} ${ms} ms`).join(', ')}\n`,
    );
    assert.ok(hit.length > 0, 'some families live on the master that was killed');
    for (const { what, ms } of served) assert.ok(ms <= recoveryMs, `${what} served again ${ms} ms after the promotion`);
  });
});
