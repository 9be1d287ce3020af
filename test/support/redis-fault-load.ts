// The load the Redis fault tests (test/redis/*-faults.test.ts) put on a platform: players' refresh
// chains (refresh-chains.ts) and probes of the calls that need no replica (client credentials,
// /cities, the player's pages), with the checks they share: no family ended, and how soon after
// a promotion every chain and every probe was served again.
import assert from 'node:assert/strict';
import { allowOverHttp, createNamedApp, PlayerAgent } from './connected-apps.ts';
import { call } from './http.ts';
import { tokenRequest } from './oauth.ts';
import type { TestPlatform } from './platform.ts';
import { createPlayers } from './players.ts';
import { pollUntil } from './redis-topologies.ts';
import { firstServedSince, type RefreshChain, type RunningChains, runRefreshChains } from './refresh-chains.ts';

/** Each chain's pause between refreshes: about 150 refreshes a second for twenty chains, as a busy app's users. */
const chainPauseMs = 100;

export interface Probe {
  name: string;
  status: number;
  ms: number;
  /** When it was sent. */
  at: number;
}

export interface RunningProbes {
  answers: Probe[];
  stop(): Promise<Probe[]>;
}

/** The median, 99th percentile and slowest of the probes' latencies, and them in words. */
export function latencies(probes: Probe[]) {
  const sorted = probes.map((probe) => probe.ms).sort((a, b) => a - b);
  const at = (share: number) => sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))] ?? 0;
  const [median, p99, slowest] = [at(0.5), at(0.99), at(1)];
  return {
    median,
    text: `p50 ${median.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${slowest.toFixed(1)} ms (${sorted.length})`,
  };
}

/** Sends each call in turn, over and over until stopped, each answer kept with its latency. */
function runProbes(calls: Record<string, () => Promise<{ status: number }>>): RunningProbes {
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

/** An app, a signed-in player of its developer, and the load's parts, on `platform`. */
export async function faultLoad(platform: TestPlatform) {
  const prisma = platform.platform.database.prisma;
  const app = await createNamedApp(prisma, 'Refreshed under faults');
  const [signedIn] = await createPlayers(prisma, app.developer.id, 1);
  const player = new PlayerAgent(platform.playerClient);
  await player.signIn(signedIn as { username: string; password: string });
  const clientToken = await tokenRequest(platform.base, app, { grant_type: 'client_credentials' });
  assert.equal(clientToken.status, 200, clientToken.text);
  const probeCalls = {
    'client credentials': () => tokenRequest(platform.base, app, { grant_type: 'client_credentials' }),
    '/cities': () =>
      call(platform.base, '/cities?limit=100', {
        headers: { authorization: `Bearer ${clientToken.json.access_token}` },
      }),
    "the player's connected apps": () => player.get('/account/connected-apps'),
  };

  return {
    /** `count` new players who allowed the app, each refreshing their family in a loop; and the probes. */
    async start(count: number): Promise<{ chains: RunningChains; probes: RunningProbes }> {
      const players = await createPlayers(prisma, app.developer.id, count);
      const tokens = [];
      for (const each of players) tokens.push((await allowOverHttp(platform.base, app, each)).refreshToken);
      return { chains: runRefreshChains(platform.base, app, tokens, chainPauseMs), probes: runProbes(probeCalls) };
    },

    /** No chain was refused and every consent still stands: no family ended without a real reuse. */
    async assertNoFamilyEnded(chains: RefreshChain[]): Promise<void> {
      assert.deepEqual(
        chains.flatMap((chain, index) =>
          chain.refused ? [`chain ${index}: ${chain.refused.status} ${chain.refused.code}`] : [],
        ),
        [],
        'families ended',
      );
      const consents = await prisma.consent.findMany({ where: { appId: app.app.id } });
      assert.deepEqual(
        consents.filter((consent) => consent.status !== 'active').map((consent) => consent.revocationReason),
        [],
        'consents ended',
      );
    },

    /** Whether every chain and every probe has been answered 200 since `since`. */
    allServedSince(chains: RefreshChain[], probes: Probe[], since: number): boolean {
      return (
        firstServedSince(chains, since).every((at) => at !== null) &&
        Object.keys(probeCalls).every((name) =>
          probes.some((probe) => probe.name === name && probe.at >= since && probe.status === 200),
        )
      );
    },

    /**
     * Kills a primary under the load (`kill`, then `promoted` resolves once a replica serves in its
     * place), waits until every chain and probe is served again, and holds the run to the rules:
     * no family ended, everything served within `recoveryMs` of the promotion. Prints what it
     * measured.
     */
    async failover(
      count: number,
      {
        kill,
        promoted,
        recoveryMs,
      }: { kill(): Promise<number>; promoted(killed: number): Promise<void>; recoveryMs: number },
    ): Promise<void> {
      const { chains, probes } = await this.start(count);
      let killedAt = 0;
      let promotedAt = 0;
      try {
        await pollUntil('the chains refreshing', async () => chains.refreshed() > 2 * count, 20_000);
        const killed = await kill();
        killedAt = Date.now();
        await promoted(killed);
        promotedAt = Date.now();
        await pollUntil(
          'every chain and every probe served after the promotion',
          async () => this.allServedSince(chains.chains, probes.answers, promotedAt),
          recoveryMs + 10_000,
        );
      } finally {
        await chains.stop();
        await probes.stop();
      }
      await this.assertNoFamilyEnded(chains.chains);
      const hit = chains.chains.filter((chain) => chain.answers.some((a) => a.at > killedAt && a.status !== 200));
      const served = this.servedAfter(chains.chains, probes.answers, promotedAt);
      process.stdout.write(
        `# killed to promoted ${promotedAt - killedAt} ms, ${hit.length} of ${count} chains met the fault; ` +
          `served again after the promotion: ${served.map(({ what, ms }) => `${what} ${ms} ms`).join(', ')}\n`,
      );
      assert.ok(hit.length > 0, 'the fault reached the families');
      for (const { what, ms } of served) {
        assert.ok(ms <= recoveryMs, `${what} served again ${ms} ms after the promotion`);
      }
    },

    /** How long after `since` the chains (the last of them) and each probe were first answered 200. */
    servedAfter(chains: RefreshChain[], probes: Probe[], since: number): { what: string; ms: number }[] {
      const refreshed = Math.max(...firstServedSince(chains, since).map((at) => (at ?? Infinity) - since));
      return [
        { what: 'every refresh chain', ms: refreshed },
        ...Object.keys(probeCalls).map((name) => {
          const first = probes.find((probe) => probe.name === name && probe.at >= since && probe.status === 200);
          return { what: name, ms: (first?.at ?? Infinity) - since };
        }),
      ];
    },
  };
}
