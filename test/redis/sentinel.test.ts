// The platform on a Sentinel-watched Redis (REDIS_SENTINELS, REDIS_SENTINEL_MASTER): the flows that
// live in Redis answer as on one server; a used code or refresh token counts only once a replica
// holds its mark (REDIS_WAIT_REPLICAS, 1 by default); and when the primary dies under load, every
// answer is a success or a 503, none skips a check, and the platform serves again from the promoted
// replica without a restart, remembering the codes used before.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp, refresh } from '@devplat/test/connected-apps';
import { type Answer, assertProblem } from '@devplat/test/http';
import { revokeToken, tokenRequest } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import {
  infoField,
  needsRedisBinaries,
  pollUntil,
  type RedisSentinel,
  redisCli,
  startRedisSentinel,
} from '@devplat/test/redis-topologies';
import { appWithPlayer, issuedCode, me, redisTopologyFlows, topologyEnv } from '@devplat/test/redis-topology-suite';
import { steadyLoad } from '@devplat/test/steady-load';
import { consoleSetup } from '@devplat/test/topology';

describe('the platform on Redis with Sentinel', { skip: needsRedisBinaries }, () => {
  let sentinel: RedisSentinel;
  let platform: TestPlatform;
  before(async () => {
    // Two replicas: after the failover the promoted one still has a replica to acknowledge a used
    // code's mark (with one, every redemption would answer 503 until the old primary came back).
    sentinel = await startRedisSentinel({ replicas: 2 });
    platform = await startTestPlatform(
      topologyEnv({ REDIS_SENTINELS: sentinel.sentinels, REDIS_SENTINEL_MASTER: sentinel.masterName }),
    );
  });
  after(async () => {
    await platform?.close();
    await sentinel?.stop();
  });
  const base = () => platform.base;

  for (const [name, flow] of Object.entries(redisTopologyFlows)) test(name, () => flow(platform));

  test('while no replica acknowledges, a redemption and a refresh answer 503 and use nothing up', async () => {
    const { app, player } = await appWithPlayer(platform, 'Sentinel unacknowledged');
    const form = await issuedCode(base(), app, player);
    const tokens = await allowOverHttp(base(), app, player);
    const resume = await sentinel.freezeReplicas();
    try {
      assertProblem(await tokenRequest(base(), app, form), 503, 'SERVICE_UNAVAILABLE');
      assertProblem(await refresh(base(), app, tokens.refreshToken), 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await resume();
    }
    // The unacknowledged marks were taken back: the client's retry is the first use.
    const redeemed = await tokenRequest(base(), app, form);
    assert.equal(redeemed.status, 200, redeemed.text);
    const refreshed = await refresh(base(), app, tokens.refreshToken);
    assert.equal(refreshed.status, 200, refreshed.text);
    const replay = await tokenRequest(base(), app, form);
    assert.equal(replay.status, 400);
    assert.equal(replay.json.error, 'invalid_grant');
  });

  test('the primary killed under load: successes or 503s only, service back after the failover, used codes stay used', async () => {
    const setup = await consoleSetup(platform, { players: 2 });
    const { app } = setup;
    const [loadPlayer, probePlayer] = setup.players as [(typeof setup.players)[0], (typeof setup.players)[0]];
    // A grant revoked well before the kill, and one revoked as it happens (below); neither may
    // yield a token or a profile at any moment.
    const revoked = await allowOverHttp(base(), app, probePlayer);
    assert.equal((await revokeToken(base(), app, revoked.refreshToken)).status, 200);
    const revokedLate = await allowOverHttp(base(), app, probePlayer);

    // The load's own code flows report only an exception's message; the probes' code flow below
    // reports each answer, so the load leaves that flow to them.
    const load = steadyLoad(
      platform,
      { ...setup, players: [loadPlayer] },
      { roundMs: 300, allowEvery: Number.POSITIVE_INFINITY },
    );
    const probes = probeLoop({
      'client credentials': () => tokenRequest(base(), app, { grant_type: 'client_credentials' }),
      'code with PKCE': async () => tokenRequest(base(), app, await issuedCode(base(), app, probePlayer)),
      'refresh of a revoked grant': () => refresh(base(), app, revoked.refreshToken),
      '/me with a revoked grant': () => me(base(), revoked.accessToken),
    });
    let stopped: Awaited<ReturnType<typeof load.stop>> | null = null;
    let recoveredAt = Number.POSITIVE_INFINITY;
    try {
      await pollUntil('the load under way', async () => load.total() > 20, 20_000);
      // A code redeemed just before the kill.
      const used = await issuedCode(base(), app, probePlayer);
      const redeemed = await tokenRequest(base(), app, used);
      assert.equal(redeemed.status, 200, redeemed.text);

      // The last writes before the kill reach no replica, as when replication lags at the moment
      // the primary dies: the failover loses them, and one of them is a revocation answered 200.
      const primary = await sentinel.primaryPort();
      const resume = await sentinel.freezeReplicas();
      let killed: number;
      let writtenUpTo: number;
      try {
        assert.equal((await revokeToken(base(), app, revokedLate.refreshToken)).status, 200);
        writtenUpTo = Number(infoField(await redisCli(primary, 'INFO', 'replication'), 'master_repl_offset'));
        killed = await sentinel.killPrimary();
      } finally {
        await resume();
      }
      const promoted = await sentinel.waitForFailover(killed);
      const promotedAt = Number(infoField(await redisCli(promoted, 'INFO', 'replication'), 'second_repl_offset'));
      assert.ok(
        promotedAt <= writtenUpTo,
        `the promoted replica lacks the last writes (${promotedAt} <= ${writtenUpTo})`,
      );

      const okBeforeRecovery = okCount(load.counts.ok);
      // The same platform, not restarted, serves the whole code flow and a refresh again.
      await pollUntil(
        'a code flow and a refresh after the failover',
        async () => {
          const tokens = await allowOverHttp(base(), app, probePlayer);
          return (await refresh(base(), app, tokens.refreshToken)).status === 200;
        },
        30_000,
      );
      recoveredAt = Date.now();
      const late = await pastUnavailable(() => refresh(base(), app, revokedLate.refreshToken));
      assert.equal(late.status, 400, `the revocation the failover lost still holds: ${late.text}`);
      assert.equal(late.json.error, 'invalid_grant');
      assertProblem(await pastUnavailable(() => me(base(), revokedLate.accessToken)), 403, 'CONSENT_REVOKED');
      const replay = await pastUnavailable(() => tokenRequest(base(), app, used));
      assert.equal(replay.status, 400, `the code used before the kill, presented again: ${replay.text}`);
      assert.equal(replay.json.error, 'invalid_grant');
      await pollUntil('the load succeeding again', async () => okCount(load.counts.ok) > okBeforeRecovery + 10, 20_000);
    } finally {
      stopped = await load.stop();
      await probes.stop();
    }

    const { counts } = stopped;
    // call() held every answer to the contract: a failure with a status is a conforming answer.
    assert.deepEqual(
      counts.failures.filter((failure) => !/^[^:]+: 503 /.test(failure)),
      [],
      'the load met only 503s',
    );
    assert.equal(counts.serverErrors, counts.failures.length, 'no 5xx but 503');

    // The player's side of a code flow, before any token request: a 503 page, or the app sent
    // back temporarily_unavailable.
    const unavailable =
      /sign-in failed: 503|consent screen answered 503|Allow answered 503|error=temporarily_unavailable/;
    assert.deepEqual(
      probes.errors.filter((error) => !unavailable.test(error)),
      [],
      'every probe was answered',
    );
    for (const { name, answer } of probes.answers) {
      if (answer.status === 503) assertProblem(answer, 503, 'SERVICE_UNAVAILABLE');
      else if (name === 'client credentials' || name === 'code with PKCE') {
        assert.equal(answer.status, 200, `${name}: ${answer.text}`);
      } else if (name.startsWith('/me')) assertProblem(answer, 403, 'CONSENT_REVOKED');
      else {
        assert.equal(answer.status, 400, `${name}: ${answer.text}`);
        assert.equal(answer.json.error, 'invalid_grant');
      }
    }
    const unavailableAnswers = probes.answers.filter(({ answer }) => answer.status === 503);
    const afterRecovery = unavailableAnswers.filter(({ at }) => at > recoveredAt).length;
    process.stdout.write(
      `# ${probes.answers.length} probes, ${unavailableAnswers.length} answered 503 (${afterRecovery} after the service was back), ${probes.errors.length} refused before the token endpoint; load ${JSON.stringify(counts.ok)}, ${counts.failures.length} failures\n`,
    );
  });
});

/** The first answer other than a 503 (each 503 the contract's Problem) within 20 s: a 503 is always allowed. */
async function pastUnavailable(send: () => Promise<Answer>): Promise<Answer> {
  let answer = await send();
  const deadline = Date.now() + 20_000;
  while (answer.status === 503 && Date.now() < deadline) {
    assertProblem(answer, 503, 'SERVICE_UNAVAILABLE');
    await new Promise((resolve) => setTimeout(resolve, 100));
    answer = await send();
  }
  return answer;
}

const okCount = (ok: Record<string, number>) => Object.values(ok).reduce((sum, n) => sum + n, 0);

/** Sends each named request in turn, over and over, until stopped; keeps every answer. */
function probeLoop(requests: Record<string, () => Promise<Answer>>) {
  let running = true;
  const answers: { name: string; answer: Answer; at: number }[] = [];
  const errors: string[] = [];
  const done = (async () => {
    while (running) {
      for (const [name, send] of Object.entries(requests)) {
        try {
          answers.push({ name, answer: await send(), at: Date.now() });
        } catch (error) {
          errors.push(`${name}: ${(error as Error).message}`);
        }
      }
      // Paced, as an app's calls are: the point is to sample the outage, not to flood it.
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    answers,
    errors,
    stop: async () => {
      running = false;
      await done;
    },
  };
}
