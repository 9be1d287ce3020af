// The split services as an operator runs them: probes on the management port, readiness that
// follows PostgreSQL and Redis through proxies that refuse or hang, the schema check, metrics that
// move by exactly a flow's amounts, and replicas that share their secrets.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';
import { generateSigningKey } from '@devplat/config';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { type FaultProxy, startFaultProxy } from '@devplat/test/fault-proxy';
import { untilApisHold } from '@devplat/test/key-rotation';
import { moved, scrape } from '@devplat/test/metrics';
import { createPlayer } from '@devplat/test/players';
import { freePort, repoRoot } from '@devplat/test/process';
import { bearer, clientCredentialsToken, replicaServer, userToken } from '@devplat/test/replica-oauth';
import {
  type Deployment,
  plannedDeployment,
  type RunningProcess,
  readiness,
  startService,
  untilReady,
} from '@devplat/test/services';
import { answer, eventually, startWebhookReceiver, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import { decodeJwt, decodeProtectedHeader } from 'jose';

const redisUrl = process.env.REDIS_URL?.trim() || null;
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';

describe('operable services: probes, readiness, metrics', { skip }, () => {
  let database: TestDatabase;
  let postgresProxy: FaultProxy;
  let redisProxy: FaultProxy;
  let receiver: WebhookReceiver;
  let deployment: Deployment;
  let auth: RunningProcess;
  let api: RunningProcess;
  let worker: RunningProcess;

  before(async () => {
    database = await createTestDatabase();
    const postgres = new URL(database.url as string);
    postgresProxy = await startFaultProxy({ port: Number(postgres.port) });
    redisProxy = await startFaultProxy({ port: Number(new URL(redisUrl as string).port || 6379) });
    receiver = await startWebhookReceiver(answer(204));
    deployment = await plannedDeployment({
      DATABASE_URL: postgresProxy.proxied(database.url as string),
      REDIS_URL: redisProxy.proxied(redisUrl as string),
      DATABASE_TIMEOUT_MS: '500',
      REDIS_TIMEOUT_MS: '500',
      WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
      WEBHOOK_POLL_MS: '50',
    });
    auth = await startService('auth', deployment, { PORT: String(await freePort()) });
    api = await startService('api', deployment);
    worker = await startService('worker', deployment);
    for (const running of [auth, api, worker]) await untilReady(running);
  });
  after(async () => {
    for (const running of [worker, api, auth]) await running?.stop();
    await postgresProxy?.close();
    await redisProxy?.close();
    await receiver?.close();
    await database?.drop();
  });

  test('each process answers /livez, /readyz and /metrics on its management port, and never on a public one', async () => {
    for (const running of [auth, api, worker]) {
      const live = await fetch(`${running.management}/livez`);
      assert.equal(live.status, 200);
      assert.deepEqual(await live.json(), { status: 'alive' });
      const ready = await readiness(running);
      assert.equal(ready.status, 200, JSON.stringify(ready.body));
      assert.equal(ready.body.status, 'ready');
      assert.ok(
        Object.values(ready.body.checks).every((result) => result === 'ok' || result === "ok: this build's schema"),
      );
      const metrics = await fetch(`${running.management}/metrics`);
      assert.match(metrics.headers.get('content-type') ?? '', /^text\/plain/);
      assert.match(await metrics.text(), /process_cpu_seconds_total/);
    }
    assert.deepEqual(Object.keys((await readiness(auth)).body.checks).sort(), [
      'postgresql',
      'redis',
      'schema',
      'signing-keys',
    ]);
    assert.deepEqual(Object.keys((await readiness(api)).body.checks).sort(), ['postgresql', 'schema', 'signing-keys']);
    assert.deepEqual(Object.keys((await readiness(worker)).body.checks).sort(), ['postgresql', 'schema']);
    for (const path of ['/livez', '/readyz', '/metrics']) {
      assert.equal((await fetch(`${api.origin}${path}`)).status, 404, `${path} is not on the public listener`);
      assert.equal((await fetch(`${auth.origin}${path}`)).status, 404, `${path} is not on auth's public listener`);
    }
  });

  test('readiness turns 503 naming PostgreSQL while it hangs or refuses, within a bound, and back without a restart', async () => {
    for (const fault of ['stall', 'refuse'] as const) {
      await postgresProxy[fault]();
      try {
        for (const running of [auth, api, worker]) {
          const started = performance.now();
          const ready = await readiness(running);
          assert.ok(performance.now() - started < 2_000, 'answered within the check bound');
          assert.equal(ready.status, 503, `${fault}: ${JSON.stringify(ready.body)}`);
          assert.equal(ready.body.status, 'not_ready');
          assert.notEqual(ready.body.checks.postgresql, 'ok');
        }
      } finally {
        await postgresProxy.restore();
      }
      for (const running of [auth, api, worker]) {
        await untilReady(running);
      }
    }
  });

  test('readiness turns 503 naming Redis while it hangs or refuses, and back without a restart', async () => {
    for (const fault of ['stall', 'refuse'] as const) {
      await redisProxy[fault]();
      try {
        const started = performance.now();
        const ready = await readiness(auth);
        assert.ok(performance.now() - started < 2_000, 'answered within the check bound');
        assert.equal(ready.status, 503, `${fault}: ${JSON.stringify(ready.body)}`);
        assert.notEqual(ready.body.checks.redis, 'ok');
        assert.equal(ready.body.checks.postgresql, 'ok', 'only the failed dependency is named');
      } finally {
        await redisProxy.restore();
      }
      await untilReady(auth);
    }
  });

  test('a process started while PostgreSQL stalls says connecting, then turns ready once it answers, without a restart', async () => {
    await postgresProxy.stall();
    let late: RunningProcess | undefined;
    try {
      late = await startService('worker', deployment);
      const ready = await readiness(late);
      assert.equal(ready.status, 503);
      assert.deepEqual(ready.body, { status: 'not_ready', checks: { postgresql: 'connecting', schema: 'connecting' } });
    } finally {
      await postgresProxy.restore();
    }
    try {
      await untilReady(late);
    } finally {
      await late.stop();
    }
    for (const running of [auth, api, worker]) await untilReady(running);
  });

  test("the schema check: this build's, a newer expand-only one (ready, and says so), a newer contract step or an older one (not ready, and says which)", async () => {
    assert.equal((await readiness(api)).body.checks.schema, "ok: this build's schema");
    await database.query(
      `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
       VALUES ('test-newer', 'x', '29990101000000_from_a_newer_release', now(), now(), 1)`,
      [],
    );
    try {
      const expand = await readiness(api);
      assert.equal(expand.status, 200, JSON.stringify(expand.body));
      assert.equal(expand.body.checks.schema, 'ok: newer schema, expand-only (29990101000000_from_a_newer_release)');
      await database.query(
        `INSERT INTO _prisma_migrations (id, checksum, migration_name, started_at, finished_at, applied_steps_count)
         VALUES ('test-contract', 'x', '29990101000001_contract_drop_a_column', now(), now(), 1)`,
        [],
      );
      const contract = await readiness(api);
      assert.equal(contract.status, 503);
      assert.match(
        contract.body.checks.schema as string,
        /^newer schema than this build, with a contract step: 29990101000001_contract_drop_a_column/,
      );
    } finally {
      await database.query(`DELETE FROM _prisma_migrations WHERE id IN ('test-newer', 'test-contract')`, []);
    }
    const [latest] = await database.query<{ id: string; migration_name: string }>(
      'SELECT id, migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1',
      [],
    );
    await database.query('UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = $1', [latest?.id]);
    try {
      const ready = await readiness(worker);
      assert.equal(ready.status, 503);
      assert.match(
        ready.body.checks.schema as string,
        /^older schema than this build: pending migrations .*db:migrate/,
      );
    } finally {
      await database.query('UPDATE _prisma_migrations SET rolled_back_at = NULL WHERE id = $1', [latest?.id]);
    }
    assert.equal((await readiness(api)).status, 200);
  });

  test('after a scripted flow the counters moved by exactly its amounts', async () => {
    const created = await createTestApp(database.prisma, { scopes: ['city.public.read', 'profile.basic.read'] });
    await database.prisma.app.update({ where: { id: created.app.id }, data: { webhookUrl: receiver.url } });
    const { username, password } = await createPlayer(database.prisma, created.developer.id);
    const as = replicaServer(deployment, auth);
    const before = await Promise.all([auth, api, worker].map((running) => scrape(running.management)));

    const tokens = [];
    for (let i = 0; i < 3; i++) tokens.push(await clientCredentialsToken(as, created.clientId, created.clientSecret));
    for (let i = 0; i < 2; i++) {
      await assert.rejects(clientCredentialsToken(as, created.clientId, 'wrong-secret'));
    }
    for (const token of tokens.slice(0, 2)) {
      const cities = await bearer(deployment.base, '/cities?limit=100', token);
      assert.equal(cities.status, 200, await cities.text());
    }
    const userAccess = await userToken(as, created, { username, password });
    assert.equal((await bearer(deployment.base, '/me', userAccess)).status, 200);
    await eventually(async () => receiver.received.length === 1, 15_000);
    await eventually(async () => {
      const samples = await scrape(worker.management);
      return samples.get('devplat_webhook_attempts_total{outcome="delivered"}') === 1;
    }, 15_000);

    const [authMoved, apiMoved, workerMoved] = await Promise.all(
      [auth, api, worker].map(async (running, index) =>
        moved(before[index] as Map<string, number>, await scrape(running.management)),
      ),
    );
    assert.equal(authMoved?.get('devplat_oauth_tokens_issued_total{grant_type="client_credentials"}'), 3);
    assert.equal(authMoved?.get('devplat_oauth_tokens_issued_total{grant_type="authorization_code"}'), 1);
    assert.equal(authMoved?.get('devplat_oauth_refusals_total{endpoint="token",error="invalid_client"}'), 2);
    assert.equal(
      authMoved?.get(
        'devplat_http_request_duration_seconds_count{app="auth",method="POST",route="/oauth/token",status="200"}',
      ),
      4,
    );
    assert.equal(
      authMoved?.get(
        'devplat_http_request_duration_seconds_count{app="auth",method="POST",route="/oauth/token",status="401"}',
      ),
      2,
    );
    assert.equal(
      apiMoved?.get(
        'devplat_http_request_duration_seconds_count{app="api",method="GET",route="/developer/v1/cities",status="200"}',
      ),
      2,
    );
    assert.equal(
      apiMoved?.get(
        'devplat_http_request_duration_seconds_count{app="api",method="GET",route="/developer/v1/me",status="200"}',
      ),
      1,
    );
    const livenessChecks = [...(apiMoved ?? [])]
      .filter(([name]) => name.startsWith('devplat_batch_read_size_sum{read="liveness"}'))
      .reduce((sum, [, value]) => sum + value, 0);
    assert.equal(livenessChecks, 3, 'three tokens checked, in however many batches');
    assert.ok((apiMoved?.get('devplat_batch_read_duration_seconds_count{read="liveness"}') ?? 0) >= 1);
    assert.ok((authMoved?.get('devplat_batch_read_size_count{read="app_directory"}') ?? 0) >= 1);
    assert.equal(workerMoved?.get('devplat_webhook_attempts_total{outcome="delivered"}'), 1);
    assert.equal(workerMoved?.get('devplat_webhook_attempt_duration_seconds_count{outcome="delivered"}'), 1);

    const samples = await scrape(auth.management);
    assert.ok((samples.get('devplat_pool_connections{pool="prisma"}') ?? 0) >= 1);
    assert.equal(samples.get('devplat_pool_connections{pool="redis"}'), 1);
    assert.ok(samples.has('devplat_pool_waiting_calls{pool="query"}'));
    const workerSamples = await scrape(worker.management);
    assert.equal(workerSamples.get('devplat_webhook_oldest_undelivered_age_seconds'), 0, 'nothing waits');
    for (const name of samples.keys()) {
      assert.ok(!name.includes(created.clientId), `no label holds a client id: ${name}`);
    }
  });
});

describe('replicas share their secrets', { skip }, () => {
  let database: TestDatabase;
  const running: RunningProcess[] = [];
  before(async () => {
    database = await createTestDatabase();
  });
  after(async () => {
    for (const process of running) await process.stop();
    await database?.drop();
  });

  test('started on Redis without a shared secret, auth exits 78 naming it; api and worker, which use none, start; the console needs the pairwise one alone', async () => {
    const deployment = await plannedDeployment({ DATABASE_URL: database.url as string, REDIS_URL: redisUrl as string });
    for (const variable of ['SIGNING_KEYS', 'PAIRWISE_SECRET', 'COOKIE_KEYS']) {
      const env: Record<string, string | undefined> = { ...deployment.env, MANAGEMENT_PORT: '0' };
      delete env[variable];
      const run = spawnSync(process.execPath, ['services/auth/src/main.ts'], {
        cwd: repoRoot,
        env,
        encoding: 'utf8',
        timeout: 30_000,
      });
      assert.equal(run.status, 78, `auth without ${variable}: ${run.stderr}`);
      assert.equal(
        run.stderr.trim(),
        `configuration error: ${variable} is required whenever REDIS_URL is set: processes that share state must share their secrets (docs/operating.md, "Replicas share their secrets", says how to make them)`,
      );
    }
    const withoutSecrets = { SIGNING_KEYS: '', PAIRWISE_SECRET: '', COOKIE_KEYS: '' };
    for (const name of ['api', 'worker'] as const) {
      const started = await startService(name, deployment, withoutSecrets);
      running.push(started);
      assert.equal((await fetch(`${started.management}/livez`)).status, 200, `${name} runs without the secrets`);
    }
    // The console names players in the consent.revoked events of a deleted app: the pairwise
    // secret alone, never the signing or cookie keys.
    const consoleAlone = spawnSync(process.execPath, ['services/console/src/main.ts'], {
      cwd: repoRoot,
      env: { ...deployment.env, ...withoutSecrets, MANAGEMENT_PORT: '0' },
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(consoleAlone.status, 78, consoleAlone.stderr);
    assert.match(consoleAlone.stderr, /^configuration error: PAIRWISE_SECRET is required by the console/);
    const started = await startService('console', deployment, {
      ...withoutSecrets,
      PAIRWISE_SECRET: deployment.env.PAIRWISE_SECRET as string,
    });
    running.push(started);
    assert.equal(
      (await fetch(`${started.management}/livez`)).status,
      200,
      'the console runs on the pairwise secret alone',
    );
  });

  test('two auth processes and one api: one sub per player, each verifies the other’s tokens, and a key rotation walked across them answers no 401', async () => {
    const oldKey = generateSigningKey();
    const newKey = generateSigningKey();
    const keys = (...list: (typeof oldKey)[]) => JSON.stringify({ keys: list });
    const deployment = await plannedDeployment({
      DATABASE_URL: database.url as string,
      REDIS_URL: redisUrl as string,
      SIGNING_KEYS: keys(oldKey),
    });
    const created = await createTestApp(database.prisma, { scopes: ['city.public.read', 'profile.basic.read'] });
    const player = await createPlayer(database.prisma, created.developer.id);

    const startAuth = async (index: number, signingKeys: string) => {
      const playerPort = index === 0 ? new URL(deployment.playerClient).port : String(await freePort());
      const internalPort = index === 0 ? new URL(deployment.internal).port : String(await freePort());
      const process = await startService('auth', deployment, {
        PORT: String(await freePort()),
        PLAYER_CLIENT_PORT: playerPort,
        AUTH_INTERNAL_PORT: internalPort,
        SIGNING_KEYS: signingKeys,
      });
      running.push(process);
      await untilReady(process); // as a rolling restart waits before it stops the next replica
      return { process, playerClient: `http://127.0.0.2:${playerPort}` };
    };
    const replicas = [await startAuth(0, keys(oldKey)), await startAuth(1, keys(oldKey))];
    const api = await startService('api', deployment);
    running.push(api);
    await untilReady(api);

    const servers = () => replicas.map(({ process, playerClient }) => replicaServer(deployment, process, playerClient));
    const subs: string[] = [];
    for (const as of servers()) {
      const token = await userToken(as, created, player);
      subs.push(decodeJwt(token).sub as string);
      const me = await bearer(deployment.base, '/me', token);
      assert.equal(me.status, 200, 'the api verifies tokens of either auth process');
      assert.equal(((await me.json()) as { sub: string }).sub, decodeJwt(token).sub);
    }
    assert.equal(subs[0], subs[1], 'one player, one sub, whichever replica issued the token');

    /** Tokens from every replica, and one of each kept from before, all answer 200 at the api. */
    const kept: string[] = [];
    const everyTokenWorks = async (step: string) => {
      for (const as of servers()) kept.push(await clientCredentialsToken(as, created.clientId, created.clientSecret));
      for (const token of kept) {
        assert.equal((await bearer(deployment.base, '/cities?limit=100', token)).status, 200, `${step}: no 401`);
      }
    };
    const restartAll = async (signingKeys: string) => {
      for (let index = 0; index < replicas.length; index++) {
        assert.equal(await replicas[index]?.process.stop(), 0, 'a drained auth process exits 0');
        replicas[index] = await startAuth(index, signingKeys);
        await everyTokenWorks(`restarting auth ${index}`);
      }
    };
    await everyTokenWorks('before the rotation');
    await restartAll(keys(oldKey, newKey)); // 1. publish the new key; the old one still signs
    await untilApisHold(newKey, [deployment.base], kept.at(-1) as string); // 2. the api holds the new key
    await restartAll(keys(newKey, oldKey)); // 3. sign with the new key
    assert.equal(decodeProtectedHeader(kept.at(-1) as string).kid, newKey.kid, 'the new key signs');
    // 4. retire the old key once every token it signed has expired (300 s): the walk drops those tokens instead of waiting
    kept.length = 0;
    await restartAll(keys(newKey));
  });
});

/**
 * Load as a load balancer sends it: GET /regions on keep-alive connections from `clients` loops,
 * sent only while the process's /readyz says ready (polled every 25 ms, as a balancer's probe).
 */
function balancedLoad(origin: string, management: string, clients: number) {
  let routing = true;
  const counts = { ok: 0, failed: [] as string[] };
  const probe = (async () => {
    while (routing) {
      const ready = await fetch(`${management}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (!ready) routing = false;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  const loops = Array.from({ length: clients }, async () => {
    while (routing) {
      try {
        const response = await fetch(`${origin}/developer/v1/regions`);
        await response.arrayBuffer();
        if (response.status === 200) counts.ok += 1;
        else counts.failed.push(`status ${response.status}`);
      } catch (error) {
        counts.failed.push(String((error as Error).cause ?? error));
      }
    }
  });
  return { counts, done: Promise.all([probe, ...loops]) };
}

describe('graceful drain on SIGTERM', { skip }, () => {
  let database: TestDatabase;
  let deployment: Deployment;
  let auth: RunningProcess;
  before(async () => {
    database = await createTestDatabase();
    deployment = await plannedDeployment({
      DATABASE_URL: database.url as string,
      REDIS_URL: redisUrl as string,
      SHUTDOWN_DELAY_MS: '500',
    });
    // The api is ready once it holds the auth service's keys.
    auth = await startService('auth', deployment, { PORT: String(await freePort()) });
  });
  after(async () => {
    await auth?.stop();
    await database?.drop();
  });

  for (const via of ['node on the service', 'the npm wrapper'] as const) {
    test(`under load, through ${via}: readiness turns 503 first, no accepted request fails, exit 0`, async () => {
      const api = await startService('api', deployment, {}, via === 'the npm wrapper' ? 'api:start' : undefined);
      await untilReady(api);
      const load = balancedLoad(api.origin as string, api.management, 8);
      // The drain starts once the load is flowing (a fixed wait served 8 requests on a busy machine).
      await eventually(() => load.counts.ok > 50, 30_000);
      const exited = new Promise<number | null>((resolve) => api.child.once('exit', (code) => resolve(code)));
      // To the process alone, as a container runtime or a supervisor sends it.
      process.kill(api.child.pid as number, 'SIGTERM');
      await load.done;
      assert.equal(await exited, 0);
      assert.deepEqual(load.counts.failed, []);
      assert.ok(load.counts.ok > 50, `served ${load.counts.ok} requests`);
      await assert.rejects(fetch(`${api.origin}/developer/v1/regions`), 'the listener is closed');
    });
  }
});
