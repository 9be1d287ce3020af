// Redis faults under refresh load, on the shape the docs recommend (a primary, two replicas, three
// sentinels): twenty players' refresh-token families refreshed in a loop, each client retrying its
// current token after a 503, while the replicas freeze or the primary dies. A 503 uses nothing up,
// so no family may end; what needs no replica (client credentials, /cities, the player's pages)
// does not wait behind the writes that do; and after a failover every operation is served again
// within 5 s of the promotion.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp, createNamedApp, PlayerAgent } from '@devplat/test/connected-apps';
import { call } from '@devplat/test/http';
import { tokenRequest } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayers } from '@devplat/test/players';
import { needsRedisBinaries, pollUntil, type RedisSentinel, startRedisSentinel } from '@devplat/test/redis-topologies';
import { topologyEnv } from '@devplat/test/redis-topology-suite';
import { firstServedSince, type RefreshChain, runRefreshChains } from '@devplat/test/refresh-chains';

const players = 20;
/** Each chain's pause between refreshes: about 150 refreshes a second in all, as a busy app's users. */
const chainPauseMs = 100;
/** WAIT's bound (half of REDIS_TIMEOUT_MS): what a call queued behind a write waiting for a replica would take. */
const waitBoundMs = 1_000;
/** How long the replicas stay frozen, at least. */
const frozenMs = 5_000;
/** How soon after the promotion every operation must be served again. */
const recoveryMs = 5_000;

interface Probe {
  name: string;
  status: number;
  ms: number;
  /** When it was sent. */
  at: number;
}

/** The median, 99th percentile and slowest of the probes' latencies. */
function latencies(probes: Probe[]) {
  const sorted = probes.map((probe) => probe.ms).sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  const [median, p99, slowest] = [at(0.5), at(0.99), at(1)];
  return {
    median,
    text: `p50 ${median.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${slowest.toFixed(1)} ms (${sorted.length})`,
  };
}

/** Calls that need no replica, one after another until stopped, each answer kept with its latency. */
function probeLoop(calls: Record<string, () => Promise<{ status: number }>>) {
  let running = true;
  const answers: Probe[] = [];
  const done = (async () => {
    while (running) {
      for (const [name, send] of Object.entries(calls)) {
        const [at, started] = [Date.now(), performance.now()];
        const status = await send().then(
          (answer) => answer.status,
          () => 0,
        );
        answers.push({ name, status, ms: performance.now() - started, at });
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  })();
  return {
    answers,
    stop: async () => {
      running = false;
      await done;
      return answers;
    },
  };
}

describe('Redis faults under refresh load, on a primary with two replicas', { skip: needsRedisBinaries }, () => {
  let sentinel: RedisSentinel;
  let platform: TestPlatform;
  let app: Awaited<ReturnType<typeof createNamedApp>>;
  let player: PlayerAgent;
  before(async () => {
    sentinel = await startRedisSentinel({ replicas: 2 });
    platform = await startTestPlatform(
      topologyEnv({ REDIS_SENTINELS: sentinel.sentinels, REDIS_SENTINEL_MASTER: sentinel.masterName }),
    );
    const prisma = platform.platform.database.prisma;
    app = await createNamedApp(prisma, 'Refreshed under faults');
    const [first] = await createPlayers(prisma, app.developer.id, 1);
    player = new PlayerAgent(platform.playerClient);
    await player.signIn(first as { username: string; password: string });
  });
  after(async () => {
    await platform?.close();
    await sentinel?.stop();
  });

  /** Twenty players who allowed the app, each with a refresh-token family. */
  const families = async () => {
    const prisma = platform.platform.database.prisma;
    const created = await createPlayers(prisma, app.developer.id, players);
    const tokens = [];
    for (const each of created) tokens.push((await allowOverHttp(platform.base, app, each)).refreshToken);
    return tokens;
  };
  const needsNoReplica = (clientToken: string) => ({
    'client credentials': () => tokenRequest(platform.base, app, { grant_type: 'client_credentials' }),
    '/cities': () => call(platform.base, '/cities?limit=100', { headers: { authorization: `Bearer ${clientToken}` } }),
    "the player's connected apps": () => player.get('/account/connected-apps'),
  });
  const clientToken = async () => {
    const answer = await tokenRequest(platform.base, app, { grant_type: 'client_credentials' });
    assert.equal(answer.status, 200, answer.text);
    return answer.json.access_token as string;
  };

  /** No chain was refused, and every consent still stands: no family ended without a real reuse. */
  const noFamilyEnded = async (chains: RefreshChain[]) => {
    assert.deepEqual(
      chains.flatMap((chain, index) =>
        chain.refused ? [`chain ${index}: ${chain.refused.status} ${chain.refused.code}`] : [],
      ),
      [],
      'families ended',
    );
    const consents = await platform.platform.database.prisma.consent.findMany({ where: { appId: app.app.id } });
    assert.deepEqual(
      consents.filter((consent) => consent.status !== 'active').map((consent) => consent.revocationReason),
      [],
      'consents ended',
    );
  };

  test('the replicas frozen: refreshes answer 503 and use nothing up; what needs no replica keeps its pace', async () => {
    const chains = runRefreshChains(platform.base, app, await families(), chainPauseMs);
    const probes = probeLoop(needsNoReplica(await clientToken()));
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
        async () => firstServedSince(chains.chains, resumedAt).every((at) => at !== null),
        15_000,
      );
    } finally {
      await chains.stop();
      await probes.stop();
    }
    await noFamilyEnded(chains.chains);

    // A call queued behind a write waiting for a replica waits out WAIT's bound (half of
    // REDIS_TIMEOUT_MS, 1 s): none may, and the calls keep the pace they had before the freeze.
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

  test('the primary killed: no family ends, every operation is served again within 5 s of the promotion', async () => {
    const chains = runRefreshChains(platform.base, app, await families(), chainPauseMs);
    const probes = probeLoop(needsNoReplica(await clientToken()));
    let killedAt = 0;
    let promotedAt = 0;
    try {
      await pollUntil('the chains refreshing', async () => chains.refreshed() > 2 * players, 20_000);
      const killed = await sentinel.killPrimary();
      killedAt = Date.now();
      await sentinel.waitForFailover(killed);
      promotedAt = Date.now();
      await pollUntil(
        'every chain and every probe served after the promotion',
        async () =>
          firstServedSince(chains.chains, promotedAt).every((at) => at !== null) &&
          Object.keys(needsNoReplica('')).every((name) =>
            probes.answers.some((probe) => probe.name === name && probe.at >= promotedAt && probe.status === 200),
          ),
        recoveryMs + 10_000,
      );
    } finally {
      await chains.stop();
      await probes.stop();
    }
    await noFamilyEnded(chains.chains);

    const refreshBack = Math.max(
      ...firstServedSince(chains.chains, promotedAt).map((at) => (at ?? Infinity) - promotedAt),
    );
    const probesBack = Object.keys(needsNoReplica('')).map((name) => {
      const first = probes.answers.find(
        (probe) => probe.name === name && probe.at >= promotedAt && probe.status === 200,
      );
      return { name, afterPromotion: (first?.at ?? Infinity) - promotedAt };
    });
    process.stdout.write(
      `# killed to promoted ${promotedAt - killedAt} ms; every chain refreshed ${refreshBack} ms after; ` +
        `${probesBack.map(({ name, afterPromotion }) => `${name} ${afterPromotion} ms`).join(', ')}\n`,
    );
    assert.ok(refreshBack <= recoveryMs, `refresh served again ${refreshBack} ms after the promotion`);
    for (const { name, afterPromotion } of probesBack) {
      assert.ok(afterPromotion <= recoveryMs, `${name} served again ${afterPromotion} ms after the promotion`);
    }
  });
});
