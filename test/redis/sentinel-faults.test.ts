// Redis faults under refresh load, on the shape the docs recommend (a primary, two replicas, three
// sentinels): twenty players' refresh-token families refreshed in a loop, each client retrying its
// current token after a 503, while the replicas freeze or the primary dies. A 503 uses nothing up,
// so no family may end; what needs no replica (client credentials, /cities, the player's pages)
// does not wait behind the writes that do; and after a failover every operation is served again
// within 5 s of the promotion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { faultLoad, latencies } from '@devplat/test/redis-fault-load';
import { needsRedisBinaries, pollUntil, type RedisSentinel, startRedisSentinel } from '@devplat/test/redis-topologies';
import { topologyEnv } from '@devplat/test/redis-topology-suite';

const players = 20;
/** WAIT's bound (half of REDIS_TIMEOUT_MS): what a call queued behind a write waiting for a replica would take. */
const waitBoundMs = 1_000;
/** How long the replicas stay frozen, at least. */
const frozenMs = 5_000;
/** How soon after the promotion every operation must be served again. */
const recoveryMs = 5_000;

describe('Redis faults under refresh load, on a primary with two replicas', { skip: needsRedisBinaries }, () => {
  let sentinel: RedisSentinel;
  let platform: TestPlatform;
  let load: Awaited<ReturnType<typeof faultLoad>>;
  before(async () => {
    sentinel = await startRedisSentinel({ replicas: 2 });
    platform = await startTestPlatform(
      topologyEnv({ REDIS_SENTINELS: sentinel.sentinels, REDIS_SENTINEL_MASTER: sentinel.masterName }),
    );
    load = await faultLoad(platform);
  });
  after(async () => {
    await platform?.close();
    await sentinel?.stop();
  });

  test('the replicas frozen: refreshes answer 503 and use nothing up; what needs no replica keeps its pace', async () => {
    const { chains, probes } = await load.start(players);
    let frozenAt = 0;
    let resumedAt = 0;
    try {
      await pollUntil(
        'the chains refreshing, and the pace of the calls needing no replica measured',
        async () => chains.refreshed() > 2 * players && probes.answers.length >= 60,
        30_000,
      );
      const resume = await sentinel.freezeReplicas();
      frozenAt = Date.now();
      try {
        // Frozen for at least five seconds, until every chain has met the fault and retried.
        await pollUntil(
          'every chain answered 503 while the replicas are frozen',
          async () =>
            Date.now() - frozenAt >= frozenMs &&
            chains.chains.every((chain) => chain.answers.filter((a) => a.at > frozenAt && a.status === 503).length > 1),
          frozenMs + 20_000,
        );
      } finally {
        await resume();
        resumedAt = Date.now();
      }
      await pollUntil(
        'every chain refreshed with its current token after the replicas came back',
        async () => load.allServedSince(chains.chains, probes.answers, resumedAt),
        15_000,
      );
    } finally {
      await chains.stop();
      await probes.stop();
    }
    await load.assertNoFamilyEnded(chains.chains);

    // A call queued behind a write waiting for a replica waits out WAIT's bound: none may, and
    // the calls keep the pace they had before the freeze.
    const frozen = probes.answers.filter((probe) => probe.at > frozenAt && probe.at < resumedAt);
    const earlier = probes.answers.filter((probe) => probe.at < frozenAt);
    assert.ok(frozen.length >= 30, `${frozen.length} probes while frozen`);
    assert.deepEqual(
      frozen.filter((probe) => probe.status !== 200 || probe.ms >= waitBoundMs),
      [],
      `answered 200 in less than ${waitBoundMs} ms while the replicas were frozen`,
    );
    const [before, during] = [latencies(earlier), latencies(frozen)];
    process.stdout.write(
      `# replicas frozen ${resumedAt - frozenAt} ms, ${chains.refreshed()} refreshes, 0 families ended; ` +
        `calls needing no replica before: ${before.text}; while frozen: ${during.text}\n`,
    );
    assert.ok(during.median <= 2 * before.median + 20, `median ${during.text} while frozen, ${before.text} before`);
  });

  test('the primary killed: no family ends, every operation is served again within 5 s of the promotion', () =>
    load.failover(players, {
      kill: () => sentinel.killPrimary(),
      promoted: async (killed) => void (await sentinel.waitForFailover(killed)),
      recoveryMs,
    }));
});
