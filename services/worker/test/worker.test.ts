import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, afterEach, before, describe, test } from 'node:test';
import { loadConfig } from '@devplat/config';
import { openDatabase, type PrismaClient } from '@devplat/db';
import { listDeliveries, replayDelivery } from '@devplat/domain/events';
import { Refusal } from '@devplat/domain/refusal';
import { sendTestWebhook } from '@devplat/domain/workflows';
import { createLogger } from '@devplat/http';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { freePort } from '@devplat/test/process';
import {
  answer,
  eventually,
  startWebhookReceiver,
  verifyWebhook,
  type WebhookReceiver,
} from '@devplat/test/webhook-receiver';
import { startWebhookWorker, type WebhookWorker } from '../src/index.ts';

const fastSettings = {
  LOG_LEVEL: 'silent',
  WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
  WEBHOOK_BACKOFF_BASE_MS: '20',
  WEBHOOK_POLL_MS: '20',
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_MAX_ATTEMPTS: '4',
};
const silent = createLogger('silent', 'worker');

/** A TCP relay to PostgreSQL that the test can cut (every connection dropped, none accepted) and restore. */
async function startTcpProxy(targetPort: string) {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(targetPort), '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  return { port, cut: close, restore: () => listen(port), close };
}

/** A logger whose lines the test reads. */
function capturingLogger(level: 'info' | 'debug' = 'info') {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: createLogger(level, 'worker', destination), lines };
}

let database: TestDatabase;
let receiver: WebhookReceiver;
const workers: WebhookWorker[] = [];

function startWorker(env: Record<string, string> = {}, prisma: PrismaClient = database.prisma, logger = silent) {
  const worker = startWebhookWorker({ config: loadConfig({ ...fastSettings, ...env }), prisma, logger });
  workers.push(worker);
  return worker;
}

before(async () => {
  database = await createTestDatabase({ seed: false });
  receiver = await startWebhookReceiver();
});
afterEach(async () => {
  await Promise.all(workers.splice(0).map((worker) => worker.stop()));
  receiver.received.length = 0;
  receiver.behave(answer(204));
});
after(async () => {
  await receiver.close();
  await database.drop();
});

async function appWithWebhook(url: string | null = receiver.url) {
  const created = await createTestApp(database.prisma);
  const app = await database.prisma.app.update({ where: { id: created.app.id }, data: { webhookUrl: url } });
  return { ...created, app, secret: app.webhookSigningSecret as string };
}

/** An outbox row as the auth service writes it with a consent change. */
async function consentEvent(app: { id: string; clientId: string }, type: 'consent.granted' | 'consent.revoked') {
  const consentId = randomUUID();
  const common = {
    app: app.clientId,
    sub: `ps_${randomUUID().replaceAll('-', '')}`,
    scopes: ['profile.basic.read'],
    receipt_version: '2026-11-22',
    consent_id: consentId,
  };
  const payload =
    type === 'consent.granted'
      ? { ...common, granted_at: new Date().toISOString() }
      : { ...common, revoked_at: new Date().toISOString(), reason: 'player_withdrawal' };
  return database.prisma.outboxEvent.create({ data: { type, appId: app.id, payload } });
}

const deliveriesOf = (eventId: string) =>
  database.prisma.webhookDelivery.findMany({ where: { eventId }, orderBy: { createdAt: 'asc' } });

async function settledDelivery(eventId: string, status: 'succeeded' | 'failed', timeoutMs = 15_000) {
  return eventually(async () => {
    const [delivery] = await deliveriesOf(eventId);
    return delivery?.status === status ? delivery : undefined;
  }, timeoutMs);
}

describe('delivery with retries', () => {
  test('a receiver failing three times then answering gets the event, signed, with one webhook-id', async () => {
    const { app, secret } = await appWithWebhook();
    const event = await consentEvent(app, 'consent.granted');
    receiver.behave((response, _request, index) => response.writeHead(index < 3 ? 500 : 204).end());
    startWorker();

    const delivery = await settledDelivery(event.id, 'succeeded');
    assert.equal(delivery.attempts, 4);
    assert.equal(delivery.lastStatusCode, 204);
    assert.equal(delivery.lastError, null);
    assert.equal(delivery.lockedUntil, null);
    assert.ok(delivery.deliveredAt);
    assert.equal(delivery.url, receiver.url);
    const enqueued = await database.prisma.outboxEvent.findUniqueOrThrow({ where: { id: event.id } });
    assert.ok(enqueued.enqueuedAt);

    assert.equal(receiver.received.length, 4);
    for (const request of receiver.received) {
      assert.equal(request.headers['webhook-id'], event.id);
      assert.deepEqual(verifyWebhook(secret, request), {
        id: event.id,
        type: 'consent.granted',
        timestamp: event.createdAt.toISOString(),
        data: event.payload,
      });
    }
    assert.equal((await deliveriesOf(event.id)).length, 1, 'one delivery, several attempts');
  });

  test('a receiver that always fails ends in a failed delivery; a replay succeeds once it recovers', async () => {
    const { app, developer, secret } = await appWithWebhook();
    const event = await consentEvent(app, 'consent.revoked');
    receiver.behave(answer(503, 'down for maintenance'));
    startWorker();

    const failed = await settledDelivery(event.id, 'failed');
    assert.equal(failed.attempts, 4);
    assert.equal(failed.lastStatusCode, 503);
    assert.equal(failed.lastError, 'HTTP 503');
    assert.equal(failed.deliveredAt, null);
    assert.equal(failed.lockedUntil, null);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(receiver.received.length, 4, 'no attempt after the last one');
    const [listed] = await listDeliveries(database.prisma, app.id, 'failed');
    assert.equal(listed?.delivery_id, failed.id);
    assert.equal(listed?.next_attempt_at, null);

    receiver.behave(answer(204));
    const stranger = await appWithWebhook();
    assert.equal(await replayDelivery(database.prisma, failed.id, { accountId: stranger.developer.id }), null);
    const replayed = await replayDelivery(database.prisma, failed.id, { accountId: developer.id, requestId: 'req_1' });
    assert.ok(replayed);
    const delivered = await eventually(async () => {
      const delivery = await database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: replayed.deliveryId } });
      return delivery.status === 'succeeded' && delivery;
    });
    assert.equal(delivered.replayOf, failed.id);
    assert.equal(delivered.attempts, 1);
    const last = receiver.received.at(-1);
    assert.ok(last);
    assert.equal(last.headers['webhook-id'], event.id, 'a replay carries the same webhook-id');
    assert.equal((verifyWebhook(secret, last) as { type: string }).type, 'consent.revoked');

    const audit = await database.prisma.auditRecord.findFirstOrThrow({
      where: { action: 'webhook.replay', targetId: failed.id },
    });
    assert.equal(audit.actorId, developer.id);
    assert.ok(Math.abs(audit.createdAt.getTime() - Date.now()) < 60_000);
    assert.deepEqual(audit.details, {
      new_delivery_id: replayed.deliveryId,
      event_id: event.id,
      event_type: 'consent.revoked',
    });

    // A delivery still waiting for its next attempt cannot be replayed.
    const waiting = await database.prisma.webhookDelivery.create({
      data: { eventId: event.id, appId: app.id, url: receiver.url, nextAttemptAt: new Date(Date.now() + 3_600_000) },
    });
    await assert.rejects(
      replayDelivery(database.prisma, waiting.id, { accountId: developer.id }),
      (error) => error instanceof Refusal && error.code === 'DELIVERY_NOT_FAILED',
    );
  });

  test('retries wait longer each time', async () => {
    const { app } = await appWithWebhook();
    const event = await consentEvent(app, 'consent.granted');
    const times: number[] = [];
    receiver.behave((response) => {
      times.push(Date.now());
      response.writeHead(500).end();
    });
    startWorker({ WEBHOOK_BACKOFF_BASE_MS: '100' });
    await settledDelivery(event.id, 'failed');
    const gaps = times.slice(1).map((time, index) => time - (times[index] as number));
    // base * 2^(n-1), at least half of it: >= 50, 100, 200 ms.
    assert.equal(gaps.length, 3);
    gaps.forEach((gap, index) => {
      assert.ok(gap >= 50 * 2 ** index, `gap ${index + 1} was ${gap} ms`);
    });
  });
});

describe('outbox and claims', () => {
  test('events of an app without a webhook URL are taken from the outbox and sent nowhere', async () => {
    const { app } = await appWithWebhook(null);
    const event = await consentEvent(app, 'consent.granted');
    startWorker();
    await eventually(
      async () => (await database.prisma.outboxEvent.findUniqueOrThrow({ where: { id: event.id } })).enqueuedAt,
    );
    assert.equal((await deliveriesOf(event.id)).length, 0);
  });

  test('two workers at once deliver every event exactly once', async () => {
    const { app, secret } = await appWithWebhook();
    const events: Awaited<ReturnType<typeof consentEvent>>[] = [];
    for (let index = 0; index < 24; index += 1) {
      events.push(await consentEvent(app, index % 2 === 0 ? 'consent.granted' : 'consent.revoked'));
    }
    // A second connection pool where there is a real server; PGlite lives in this process only.
    const second = database.url ? await openDatabase({ databaseUrl: database.url, poolSize: 4 }) : null;
    // A slow answer keeps attempts in flight, so both workers claim while the other holds claims.
    receiver.behave((response) => setTimeout(() => response.writeHead(204).end(), 30));
    const logs = [capturingLogger('debug'), capturingLogger('debug')] as const;
    try {
      startWorker({}, database.prisma, logs[0].logger);
      startWorker({}, second?.prisma ?? database.prisma, logs[1].logger);
      await receiver.waitForRequests(events.length, 20_000);
      await eventually(async () => {
        const settled = await database.prisma.webhookDelivery.count({
          where: { eventId: { in: events.map((event) => event.id) }, status: 'succeeded' },
        });
        return settled === events.length;
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(receiver.received.length, events.length);
      const ids = receiver.received.map((request) => request.headers['webhook-id']);
      assert.deepEqual(new Set(ids), new Set(events.map((event) => event.id)));
      for (const request of receiver.received) verifyWebhook(secret, request);
      const deliveries = await database.prisma.webhookDelivery.findMany({
        where: { eventId: { in: events.map((event) => event.id) } },
      });
      assert.equal(deliveries.length, events.length);
      assert.ok(deliveries.every((delivery) => delivery.attempts === 1));
      for (const log of logs) {
        assert.ok(
          log.lines.some((line) => /"webhook attempt"/.test(line)),
          'both workers sent some',
        );
      }
    } finally {
      await Promise.all(workers.splice(0).map((worker) => worker.stop()));
      await second?.close();
    }
  });

  test('a console test event arrives signed, marked as a test, for a player that does not exist', async () => {
    const { app, secret } = await appWithWebhook();
    startWorker();
    const { deliveryId } = await sendTestWebhook(database.prisma, { accountId: app.accountId }, app.id);
    const [request] = await receiver.waitForRequests(1);
    assert.ok(request);
    const body = verifyWebhook(secret, request) as { type: string; data: Record<string, unknown> };
    assert.equal(body.type, 'consent.granted');
    assert.equal(body.data.test, true);
    assert.equal(body.data.app, app.clientId);
    assert.match(body.data.sub as string, /^ps_[A-Za-z0-9_-]{32}$/);
    const realSubjects = await database.prisma.outboxEvent.findMany({ where: { type: { startsWith: 'consent.' } } });
    assert.equal(
      realSubjects.filter((event) => (event.payload as { sub?: string }).sub === body.data.sub).length,
      1,
      'the synthetic sub is nobody else’s',
    );
    const [view] = await eventually(async () => {
      const list = await listDeliveries(database.prisma, app.id, 'succeeded');
      return list.length === 1 && list;
    });
    assert.equal(view?.delivery_id, deliveryId);
    assert.equal(view?.test, true);
  });
});

describe('running conditions', () => {
  test('with the platform switched off the worker idles and says so once', async () => {
    const { app } = await appWithWebhook();
    const event = await consentEvent(app, 'consent.granted');
    const { logger, lines } = capturingLogger();
    startWorker({ DEVELOPER_PLATFORM_ENABLED: 'off' }, database.prisma, logger);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await database.prisma.outboxEvent.findUniqueOrThrow({ where: { id: event.id } })).enqueuedAt, null);
    assert.equal(receiver.received.length, 0);
    assert.equal(lines.filter((line) => /switched off/.test(line)).length, 1);
    // Once the platform is on, the waiting event goes out.
    startWorker();
    await settledDelivery(event.id, 'succeeded');
  });

  test('PostgreSQL unreachable: the worker logs once, keeps trying, and stops cleanly', async () => {
    const { logger, lines } = capturingLogger();
    const unreachable = await openDatabase({ databaseUrl: `postgresql://postgres@127.0.0.1:${await freePort()}/none` });
    try {
      const worker = startWorker({}, unreachable.prisma, logger);
      await eventually(() => lines.some((line) => /pass failed/.test(line)));
      await new Promise((resolve) => setTimeout(resolve, 300)); // many more ticks
      const failures = lines.filter((line) => /pass failed/.test(line));
      assert.equal(failures.length, 1, 'logged once per outage, not once per tick');
      assert.doesNotMatch(failures[0] as string, /\bat .*\.(ts|js):\d+/, 'no stack trace in the log');
      await worker.stop();
    } finally {
      await unreachable.close();
    }
  });

  test('PostgreSQL going away mid-run: events written meanwhile go out once it is back', {
    skip: realPostgresUrl ? false : 'needs a real PostgreSQL (DATABASE_URL): PGlite cannot be cut off',
  }, async () => {
    const { app } = await appWithWebhook();
    const proxy = await startTcpProxy(new URL(database.url as string).port || '5432');
    const proxied = new URL(database.url as string);
    proxied.host = `127.0.0.1:${proxy.port}`;
    const viaProxy = await openDatabase({ databaseUrl: proxied.href, poolSize: 2 });
    const { logger, lines } = capturingLogger();
    try {
      startWorker({}, viaProxy.prisma, logger);
      const before = await consentEvent(app, 'consent.granted');
      await settledDelivery(before.id, 'succeeded');

      await proxy.cut();
      await eventually(() => lines.some((line) => /pass failed/.test(line)));
      const during = await consentEvent(app, 'consent.revoked'); // written directly, not through the proxy
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal((await deliveriesOf(during.id)).length, 0);

      await proxy.restore();
      await settledDelivery(during.id, 'succeeded');
      assert.ok(lines.some((line) => /answers again/.test(line)));
      assert.equal(lines.filter((line) => /pass failed/.test(line)).length, 1);
    } finally {
      await Promise.all(workers.splice(0).map((worker) => worker.stop()));
      await viaProxy.close();
      await proxy.close();
    }
  });
});
