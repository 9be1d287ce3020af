// The worker's entry point as a real process: refusing to start without PostgreSQL, and losing no
// event when it is killed in the middle of a delivery.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { repoRoot, type StartedProcess, startProcess } from '@devplat/test/process';
import {
  answer,
  eventually,
  hold,
  startWebhookReceiver,
  verifyWebhook,
  type WebhookReceiver,
} from '@devplat/test/webhook-receiver';

const entryPoint = 'services/worker/src/main.ts';
const ready = /Webhook worker is running/;

/** The parent's environment without the settings each test decides itself. */
function baseEnv(): Record<string, string | undefined> {
  const { DATABASE_URL: _database, REDIS_URL: _redis, ...rest } = process.env;
  return { ...rest, LOG_LEVEL: 'warn', MANAGEMENT_PORT: '0', SHUTDOWN_DELAY_MS: '0' };
}

describe('worker entry point', () => {
  test('without DATABASE_URL it says why in one line and exits 78', () => {
    const run = spawnSync(process.execPath, [entryPoint], { cwd: repoRoot, env: baseEnv(), encoding: 'utf8' });
    assert.equal(run.status, 78);
    assert.equal(run.stdout, '');
    const lines = run.stderr.trim().split('\n');
    assert.equal(lines.length, 1, run.stderr);
    assert.match(lines[0] as string, /DATABASE_URL is required/);
  });
});

describe('a worker killed mid-delivery', {
  skip: realPostgresUrl ? false : 'needs a real PostgreSQL (DATABASE_URL): PGlite cannot be shared between processes',
}, () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  const started: StartedProcess[] = [];
  before(async () => {
    database = await createTestDatabase({ seed: false });
    receiver = await startWebhookReceiver();
  });
  after(async () => {
    for (const worker of started) {
      if (worker.child.exitCode === null && worker.child.signalCode === null) await worker.stop();
    }
    await receiver.close();
    await database.drop();
  });

  const startWorker = async () => {
    const worker = await startProcess(
      process.execPath,
      [entryPoint],
      {
        ...baseEnv(),
        DATABASE_URL: database.url as string,
        WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_POLL_MS: '50',
        WEBHOOK_BACKOFF_BASE_MS: '50',
      },
      ready,
    );
    started.push(worker);
    return worker;
  };

  const appWithReceiver = async () => {
    const created = await createTestApp(database.prisma);
    return database.prisma.app.update({ where: { id: created.app.id }, data: { webhookUrl: receiver.url } });
  };

  test('loses no event: a second worker sends it once the first one’s claim expires', async () => {
    const app = await appWithReceiver();
    const event = await database.prisma.outboxEvent.create({
      data: {
        type: 'consent.granted',
        appId: app.id,
        payload: {
          app: app.clientId,
          sub: `ps_${'c'.repeat(32)}`,
          scopes: ['profile.basic.read'],
          receipt_version: '2026-11-22',
          consent_id: randomUUID(),
          granted_at: new Date().toISOString(),
        },
      },
    });
    receiver.behave(hold);
    const first = await startWorker();
    await receiver.waitForRequests(1);
    const exited = new Promise((resolve) => first.child.once('exit', (_code, signal) => resolve(signal)));
    process.kill(-(first.child.pid as number), 'SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    const orphaned = await database.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id } });
    assert.equal(orphaned.status, 'pending');
    assert.equal(orphaned.attempts, 0, 'the killed worker recorded nothing');
    assert.ok(orphaned.lockedUntil && orphaned.lockedUntil.getTime() > Date.now(), 'its claim is still held');

    receiver.behave(answer(204));
    const second = await startWorker();
    const delivered = await eventually(async () => {
      const delivery = await database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: orphaned.id } });
      return delivery.status === 'succeeded' && delivery;
    }, 30_000);
    assert.equal(delivered.attempts, 1);
    assert.equal(receiver.received.length, 2, 'sent twice in all: at least once');
    for (const request of receiver.received) {
      assert.equal(request.headers['webhook-id'], event.id, 'the receiver can tell it is the same event');
      verifyWebhook(app.webhookSigningSecret as string, request);
    }
    // SIGTERM stops it cleanly.
    assert.equal(await second.stop(), 0);
  });

  test('drained mid-delivery (SIGTERM) it finishes the attempt and records it: sent once, nothing lost', async () => {
    const app = await appWithReceiver();
    const event = await database.prisma.outboxEvent.create({
      data: {
        type: 'consent.revoked',
        appId: app.id,
        payload: {
          app: app.clientId,
          sub: `ps_${'d'.repeat(32)}`,
          consent_id: randomUUID(),
          revoked_at: new Date().toISOString(),
          reason: 'player_removed',
        },
      },
    });
    const before = receiver.received.length;
    // The receiver takes its time: the signal arrives while the attempt is in flight.
    receiver.behave((response) => setTimeout(() => response.writeHead(204).end(), 1_500));
    const worker = await startWorker();
    await receiver.waitForRequests(before + 1);
    assert.equal(await worker.stop(), 0, 'exit 0 after the drain');
    const delivery = await database.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event.id } });
    assert.equal(delivery.status, 'succeeded', 'the attempt in flight was finished and recorded');
    assert.equal(delivery.attempts, 1);
    assert.equal(delivery.lockedUntil, null, 'no lease is left behind');

    receiver.behave(answer(204));
    const next = await startWorker();
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    assert.equal(await next.stop(), 0);
    const sent = receiver.received.slice(before).filter((request) => request.headers['webhook-id'] === event.id);
    assert.equal(sent.length, 1, 'sent once: the next worker found nothing left to send');
  });
});
