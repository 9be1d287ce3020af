// The multi-replica topology stays available while it is operated: a rolling restart of every
// service, a replica killed outright, and a signing-key rotation walked through the replicas,
// each under a bounded mixed load through the gateway (tokens, /cities, /me, refresh).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateSigningKey } from '@devplat/config';
import { allowOverHttp } from '@devplat/test/connected-apps';
import { sharedSecrets } from '@devplat/test/env';
import { call } from '@devplat/test/http';
import { untilApisHold } from '@devplat/test/key-rotation';
import { basicAuth } from '@devplat/test/oauth';
import { type LoadCounts, loadRecorder } from '@devplat/test/steady-load';
import {
  consoleSetup,
  failureWatch,
  needsStores,
  replicaBase,
  startTestTopology,
  type TestTopology,
} from '@devplat/test/topology';
import { eventually } from '@devplat/test/webhook-receiver';
import { decodeProtectedHeader } from 'jose';

let topology: TestTopology;
let setup: Awaited<ReturnType<typeof consoleSetup>>;
const loops = 4;
/**
 * Each loop starts a round at most this often: about 160 requests/s in all, dense enough that every
 * drain and kill meets requests in flight, without the load starving the machine (unpaced, it took
 * both cores, and the other test file running beside it, to itself).
 */
const roundMs = 100;

/** Each loop, as one app would: a token, /cities with it, /me and a refresh with its player's tokens. */
function mixedLoad() {
  let running = true;
  const { counts, attempt } = loadRecorder();
  const form = (body: Record<string, string>) => ({
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(setup.app.clientId, setup.app.clientSecret),
    },
    body: new URLSearchParams(body).toString(),
  });
  const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` } });
  const done = Promise.all(
    setup.players.slice(0, loops).map(async (player) => {
      let user = await allowOverHttp(topology.base, setup.app, player);
      while (running) {
        const started = Date.now();
        const issued = await attempt('token', () =>
          call(topology.base, '/oauth/token', form({ grant_type: 'client_credentials' })),
        );
        const token = issued?.json?.access_token as string | undefined;
        if (token) await attempt('/cities', () => call(topology.base, '/cities?limit=100', bearer(token)));
        await attempt('/me', () => call(topology.base, '/me', bearer(user.accessToken)));
        const refreshed = await attempt('refresh', () =>
          call(topology.base, '/oauth/token', form({ grant_type: 'refresh_token', refresh_token: user.refreshToken })),
        );
        if (refreshed) {
          user = { ...user, accessToken: refreshed.json.access_token, refreshToken: refreshed.json.refresh_token };
        }
        await new Promise((resolve) => setTimeout(resolve, Math.max(0, roundMs - (Date.now() - started))));
      }
    }),
  );
  return {
    counts,
    answered: () => Object.values(counts.ok).reduce((sum, n) => sum + n, 0),
    async stop() {
      running = false;
      await done;
      return counts;
    },
  };
}

/** Runs `work` under the mixed load, which always stops with it; resolves with the load's counts. */
async function underLoad(work: (answered: () => number) => Promise<void>) {
  const load = mixedLoad();
  try {
    await eventually(() => load.answered() > 20, 10_000);
    await work(load.answered);
  } finally {
    await load.stop();
  }
  return { ...load.counts, answered: load.answered() };
}

/**
 * Every request of the load answered 200. A POST nginx sends to a replica in the instant it closes
 * its listener is reset unread and passed on to the next replica (the gateway's non_idempotent on
 * auth's locations; test/infra/gateway-retries.test.ts shows that case alone).
 */
function assertNoneFailed(counts: LoadCounts) {
  assert.deepEqual(counts.failures, [], topology.explain(counts.failedRequestIds));
}

describe('the topology stays available while it is operated', { skip: needsStores }, () => {
  before(async () => {
    topology = await startTestTopology();
    setup = await consoleSetup(topology, { players: loops });
  });
  const failed = failureWatch();
  after(async () => {
    await topology?.close({ keepLogs: failed() });
  });

  test('a rolling restart of every service, one replica at a time, under mixed load: zero failed requests', async (t) => {
    const before = topology.replicas.map((replica) => replica.pid());
    const counts = await underLoad(async () => {
      const codes = await topology.rollingRestart(topology.replicas);
      assert.deepEqual(
        codes,
        before.map(() => 0),
        'each replica drained and exited 0',
      );
    });
    assert.ok(
      topology.replicas.every((replica, index) => replica.pid() !== before[index]),
      'each is a new process',
    );
    t.diagnostic(
      `rolling restart of ${topology.replicas.length} processes: ${counts.answered} requests answered 200, ${counts.failures.length} failed`,
    );
    assertNoneFailed(counts);
    assert.ok(counts.answered > 100, `only ${counts.answered} requests were made`);
  });

  test('one api replica killed with SIGKILL under load: the gateway routes around it; at most the requests in flight on it fail', async (t) => {
    const [victim] = topology.of('api');
    const counts = await underLoad(async (answered) => {
      assert.equal(await victim?.stop('SIGKILL'), null, 'killed, not exited');
      const okAtKill = answered();
      await eventually(() => answered() > okAtKill + 100, 20_000);
    });
    await victim?.start();
    t.diagnostic(
      `api-1 killed under ${loops} loops: ${counts.answered} answered 200, ${counts.failures.length} failed ${JSON.stringify(counts.failures)}`,
    );
    assert.ok(counts.failures.length <= loops, `at most one request in flight per loop: ${counts.failures.join('\n')}`);
    for (const failure of counts.failures) assert.match(failure, /503 .*SERVICE_UNAVAILABLE/, 'a Problem, not a page');
  });

  test('a signing-key rotation walked through the auth replicas: no 401 at any step, at any api replica', async (t) => {
    const oldKey = (JSON.parse(sharedSecrets.SIGNING_KEYS as string) as { keys: unknown[] }).keys[0];
    const newKey = generateSigningKey();
    const keys = (...list: unknown[]) => JSON.stringify({ keys: list });
    const kept: string[] = [];
    const everyTokenWorks = async (step: string) => {
      const answer = await call(topology.base, '/oauth/token', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(setup.app.clientId, setup.app.clientSecret),
        },
        body: 'grant_type=client_credentials',
      });
      assert.equal(answer.status, 200, step);
      kept.push(answer.json.access_token);
      for (const base of topology.of('api').map(replicaBase)) {
        for (const token of kept) {
          const cities = await call(base, '/cities?limit=100', { headers: { authorization: `Bearer ${token}` } });
          assert.equal(cities.status, 200, `${step}, ${base}: ${cities.text}`);
        }
      }
    };
    const walk = async (signingKeys: string, step: string) => {
      for (const replica of topology.of('auth')) {
        assert.deepEqual(await topology.rollingRestart([replica], { SIGNING_KEYS: signingKeys }), [0]);
        await everyTokenWorks(`${step}, ${replica.name} restarted`);
      }
    };
    const counts = await underLoad(async () => {
      await everyTokenWorks('before');
      await walk(keys(oldKey, newKey), '1. publish');
      // 2. every api replica holds the new key before a token signed with it can reach one
      await untilApisHold(newKey, topology.of('api').map(replicaBase), kept.at(-1) as string);
      await walk(keys(newKey, oldKey), '3. sign with the new key');
      assert.equal(decodeProtectedHeader(kept.at(-1) as string).kid, newKey.kid);
      kept.length = 0; // 4. retiring the old key waits out its tokens' 300 s; the walk drops them instead
      await walk(keys(newKey), '4. retire');
    });
    t.diagnostic(
      `key rotation under ${loops} loops: ${counts.answered} answered 200, ${counts.failures.length} failed`,
    );
    assertNoneFailed(counts);
  });
});
