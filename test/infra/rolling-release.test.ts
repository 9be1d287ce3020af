// A release with a migration, rolled through the multi-replica topology without a dropped call, and
// rolled back. Release N is this checkout; release N+1 is the same checkout plus one expand
// migration (a new table and a nullable column), made as a hard-linked copy. Under a steady load
// over every kind of call (tokens of each grant, revocation, /cities, /me, the console, the player
// client's pages, consent webhooks): N+1's migration runs while N serves (N stays ready: a newer,
// expand-only schema), every replica (two consoles too) is replaced by N+1 one at a time, then
// rolled back to N the same way. Zero failed requests and zero 5xx; every player's refresh token
// and consent survive; every webhook event is delivered at least once (repeats carry the same id).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { refresh } from '@devplat/test/connected-apps';
import { call } from '@devplat/test/http';
import { runProcess } from '@devplat/test/process';
import { steadyLoad } from '@devplat/test/steady-load';
import { consoleSetup, failureWatch, needsStores, startTestTopology, type TestTopology } from '@devplat/test/topology';
import { answer, eventually, startWebhookReceiver, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import { repoRoot } from '@devplat/topology';

const releaseMigration = '29991231000000_release_probe';
const players = 3;

let topology: TestTopology;
let setup: Awaited<ReturnType<typeof consoleSetup>>;
let receiver: WebhookReceiver;
let scratch: string;
let nextRelease: string;

/** Release N+1: this checkout (hard links: no file is copied) plus one expand migration. */
function makeNextRelease(into: string): string {
  const root = join(into, 'release-n1');
  mkdirSync(root);
  for (const entry of readdirSync(repoRoot)) {
    if (entry === '.git') continue;
    const linked = spawnSync('cp', ['-al', join(repoRoot, entry), root]);
    if (linked.status !== 0) assert.equal(spawnSync('cp', ['-a', join(repoRoot, entry), root]).status, 0);
  }
  const migration = join(root, 'prisma', 'migrations', releaseMigration);
  mkdirSync(migration);
  writeFileSync(
    join(migration, 'migration.sql'),
    `SET lock_timeout = '5s';
CREATE TABLE "release_probes" ("id" UUID NOT NULL, "note" TEXT, CONSTRAINT "release_probes_pkey" PRIMARY KEY ("id"));
ALTER TABLE "apps" ADD COLUMN "release_note" TEXT;
`,
  );
  return root;
}

/** What each replica on the database (all but the contract mock) says of the schema on /readyz. */
async function schemaAnswers(): Promise<string[]> {
  return Promise.all(
    topology.replicas
      .filter((replica) => replica.service !== 'mock')
      .map(async (replica) => {
        const ready = await fetch(`${replica.management}/readyz`);
        const body = (await ready.json()) as { checks: Record<string, string> };
        return `${replica.name} ${ready.status} ${body.checks.schema ?? '(no schema check)'}`;
      }),
  );
}

/**
 * Waits until every replica's /readyz says what `expected` matches, and gives their answers. On a
 * busy machine one readiness check may miss its own bound (`503 did not answer within 1000 ms`)
 * for a moment; the state asserted is where each replica settles, within `withinMs`.
 */
async function schemaSettles(expected: RegExp, withinMs = 20_000): Promise<string[]> {
  const deadline = Date.now() + withinMs;
  for (;;) {
    const lines = await schemaAnswers();
    if (lines.every((line) => expected.test(line)) || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('a rolling release with a migration, and its rollback', { skip: needsStores }, () => {
  before(async () => {
    scratch = mkdtempSync(join(tmpdir(), 'devplat-release-'));
    nextRelease = makeNextRelease(scratch);
    receiver = await startWebhookReceiver(answer(204));
    topology = await startTestTopology(
      { WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on', WEBHOOK_POLL_MS: '100', WEBHOOK_BACKOFF_BASE_MS: '100' },
      { console: 2 },
    );
    setup = await consoleSetup(topology, { players, webhookUrl: receiver.url });
  });
  const failed = failureWatch();
  after(async () => {
    await topology?.close({ keepLogs: failed() });
    await receiver?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  // Two rolls of ten processes, each drained (SHUTDOWN_DELAY_MS 4 s) and rested: about 3 minutes on a
  // quiet machine, more on a busy one.
  test('N → migrate → N+1 one replica at a time → back to N, under steady load: zero failed requests', {
    timeout: 10 * 60_000,
  }, async (t) => {
    const load = steadyLoad(topology, setup);
    let stopped: Awaited<ReturnType<typeof load.stop>> | null = null;
    try {
      await eventually(() => load.total() > 50, 20_000);

      // 1. N+1's migration, applied while N serves: N stays ready and says the schema is newer.
      const migrate = await runProcess(process.execPath, ['packages/2-infrastructure/db/scripts/migrate.ts'], {
        cwd: nextRelease,
        env: { ...process.env, DATABASE_URL: topology.database.url as string },
      }).done;
      assert.equal(migrate.code, 0, migrate.stderr);
      const newer = new RegExp(`^\\S+ 200 ok: newer schema, expand-only \\(${releaseMigration}\\)$`);
      for (const line of await schemaSettles(newer)) assert.match(line, newer);

      // 2. Every replica replaced by N+1, one at a time: each is ready on its own schema.
      const replaced = await topology.rollingRestart(topology.replicas, undefined, nextRelease);
      assert.deepEqual(
        replaced,
        topology.replicas.map(() => 0),
        'each N replica drained and exited 0',
      );
      const own = /^\S+ 200 ok: this build's schema$/;
      for (const line of await schemaSettles(own)) assert.match(line, own);

      // 3. Rolled back to N, the same way, on the migrated schema.
      const rolledBack = await topology.rollingRestart(topology.replicas, undefined, repoRoot);
      assert.deepEqual(
        rolledBack,
        topology.replicas.map(() => 0),
        'each N+1 replica drained and exited 0',
      );
      for (const line of await schemaSettles(newer)) assert.match(line, newer);
    } finally {
      stopped = await load.stop();
    }
    const { counts, users } = stopped;
    const total = Object.values(counts.ok).reduce((sum, n) => sum + n, 0) + counts.failures.length;
    t.diagnostic(
      `rolling release and rollback of ${topology.replicas.length} processes: ${total} requests, ` +
        `${counts.failures.length} failed, ${counts.serverErrors} 5xx; by operation ${JSON.stringify(counts.ok)}`,
    );
    assert.deepEqual(counts.failures, [], `no request failed\n${topology.explain(counts.failedRequestIds)}`);
    assert.equal(counts.serverErrors, 0);
    for (const operation of [
      'client_credentials',
      '/cities',
      'revocation',
      '/me',
      'refresh',
      'console',
      'player page',
      'code + PKCE',
    ]) {
      assert.ok((counts.ok[operation] ?? 0) > 0, `${operation} was exercised`);
    }

    // Nothing lost: each player's latest refresh token still works, and so does its consent.
    for (const user of users) {
      const refreshed = await refresh(topology.base, setup.app, user.refreshToken);
      assert.equal(refreshed.status, 200, refreshed.text);
      const me = await call(topology.base, '/me', {
        headers: { authorization: `Bearer ${refreshed.json.access_token}` },
      });
      assert.equal(me.status, 200, me.text);
    }

    // Every consent event of the app delivered at least once; a repeat is the same event (same id).
    const events = await topology.database.query<{ id: string }>(
      'SELECT e.id FROM outbox_events e JOIN apps a ON a.id = e.app_id WHERE a.client_id = $1',
      [setup.app.clientId],
    );
    assert.ok(events.length >= players, `${events.length} consent events`);
    const delivered = await eventually(() => {
      const ids = new Set(receiver.received.map((received) => received.headers['webhook-id']));
      return events.every((event) => [...ids].some((id) => id?.endsWith(event.id))) && ids;
    }, 30_000);
    const bodies = new Map<string, string>();
    for (const received of receiver.received) {
      const id = received.headers['webhook-id'] as string;
      if (bodies.has(id)) assert.equal(received.body, bodies.get(id), `a repeat of ${id} is the same event`);
      else bodies.set(id, received.body);
    }
    t.diagnostic(
      `webhooks: ${events.length} events, ${delivered.size} delivered, ${receiver.received.length} deliveries in all`,
    );
  });
});
