// The multi-replica topology stays available while it is operated: a rolling restart of every
// service, a replica killed outright, and a signing-key rotation walked through the replicas,
// each under a bounded mixed load through the gateway (tokens, /cities, /me, refresh).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateSigningKey } from '@devplat/config';
import { allowOverHttp } from '@devplat/test/connected-apps';
import { sharedSecrets } from '@devplat/test/env';
import { call } from '@devplat/test/http';
import { basicAuth } from '@devplat/test/oauth';
import { consoleSetup, needsStores, replicaBase, startTestTopology, type TestTopology } from '@devplat/test/topology';
import { eventually } from '@devplat/test/webhook-receiver';
import { decodeProtectedHeader } from 'jose';

let topology: TestTopology;
let setup: Awaited<ReturnType<typeof consoleSetup>>;
const loops = 4;

/** Each loop, as one app would: a token, /cities with it, /me and a refresh with its player's tokens. */
interface LoadCounts {
  ok: number;
  failures: string[];
}

function mixedLoad() {
  let running = true;
  const counts: LoadCounts = { ok: 0, failures: [] };
  const form = (body: Record<string, string>) => ({
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(setup.app.clientId, setup.app.clientSecret),
    },
    body: new URLSearchParams(body).toString(),
  });
  const record = (what: string, answer: { status: number; text: string }) => {
    if (answer.status === 200) counts.ok += 1;
    else counts.failures.push(`${what}: ${answer.status} ${answer.text.slice(0, 200)}`);
    return answer.status === 200;
  };
  const attempt = async (what: string, send: () => ReturnType<typeof call>) => {
    try {
      return record(what, await send());
    } catch (error) {
      counts.failures.push(`${what}: ${String((error as Error).cause ?? error)}`);
      return false;
    }
  };
  const done = Promise.all(
    setup.players.slice(0, loops).map(async (player) => {
      let user = await allowOverHttp(topology.base, setup.app, player);
      while (running) {
        let token = '';
        await attempt('token', async () => {
          const answer = await call(topology.base, '/oauth/token', form({ grant_type: 'client_credentials' }));
          token = answer.json?.access_token ?? '';
          return answer;
        });
        const bearer = (value: string) => ({ headers: { authorization: `Bearer ${value}` } });
        if (token) await attempt('/cities', () => call(topology.base, '/cities?limit=100', bearer(token)));
        await attempt('/me', () => call(topology.base, '/me', bearer(user.accessToken)));
        await attempt('refresh', async () => {
          const answer = await call(
            topology.base,
            '/oauth/token',
            form({ grant_type: 'refresh_token', refresh_token: user.refreshToken }),
          );
          if (answer.status === 200) {
            user = { ...user, accessToken: answer.json.access_token, refreshToken: answer.json.refresh_token };
          }
          return answer;
        });
      }
    }),
  );
  return {
    counts,
    async stop() {
      running = false;
      await done;
      return counts;
    },
  };
}

/** Runs `work` under the mixed load, which always stops with it; resolves with the load's counts. */
async function underLoad(work: (counts: LoadCounts) => Promise<void>): Promise<LoadCounts> {
  const load = mixedLoad();
  try {
    await eventually(() => load.counts.ok > 20, 10_000);
    await work(load.counts);
  } finally {
    await load.stop();
  }
  return load.counts;
}

/**
 * Every request of the load answered 200. A POST nginx sends to a replica in the instant it closes
 * its listener is reset unread and passed on to the next replica (the gateway's non_idempotent on
 * auth's locations; test/infra/gateway-retries.test.ts shows that case alone).
 */
function assertNoneFailed(counts: LoadCounts) {
  assert.deepEqual(counts.failures, [], gatewayLog());
}

/** What nginx said (its error log), for a failure's message. */
const gatewayLog = () =>
  `gateway log:\n${topology.logs.filter((line) => line.startsWith('[gateway]')).join('\n') || '(nothing)'}`;

describe('the topology stays available while it is operated', { skip: needsStores }, () => {
  before(async () => {
    topology = await startTestTopology();
    setup = await consoleSetup(topology, { players: loops });
  });
  after(async () => {
    await topology?.close();
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
      `rolling restart of ${topology.replicas.length} processes: ${counts.ok} requests answered 200, ${counts.failures.length} failed`,
    );
    assertNoneFailed(counts);
    assert.ok(counts.ok > 100, `only ${counts.ok} requests were made`);
  });

  test('one api replica killed with SIGKILL under load: the gateway routes around it; at most the requests in flight on it fail', async (t) => {
    const [victim] = topology.of('api');
    const counts = await underLoad(async (running) => {
      assert.equal(await victim?.stop('SIGKILL'), null, 'killed, not exited');
      const okAtKill = running.ok;
      await eventually(() => running.ok > okAtKill + 100, 20_000);
    });
    await victim?.start();
    t.diagnostic(
      `api-1 killed under ${loops} loops: ${counts.ok} answered 200, ${counts.failures.length} failed ${JSON.stringify(counts.failures)}`,
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
      await new Promise((resolve) => setTimeout(resolve, 31_000)); // 2. every api's key-set cooldown
      await walk(keys(newKey, oldKey), '3. sign with the new key');
      assert.equal(decodeProtectedHeader(kept.at(-1) as string).kid, newKey.kid);
      kept.length = 0; // 4. retiring the old key waits out its tokens' 300 s; the walk drops them instead
      await walk(keys(newKey), '4. retire');
    });
    t.diagnostic(`key rotation under ${loops} loops: ${counts.ok} answered 200, ${counts.failures.length} failed`);
    assertNoneFailed(counts);
  });
});
