import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { idFormats } from '@devplat/contract';
import { Refusal } from '@devplat/domain/refusal';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { listDeliveries, replayDelivery } from '../src/events/index.ts';
import { sendTestWebhook } from '../src/workflows/index.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

async function appWithWebhook(url: string | null = 'https://hooks.example.test/consent') {
  const created = await createTestApp(database.prisma);
  await database.prisma.app.update({ where: { id: created.app.id }, data: { webhookUrl: url } });
  return created;
}

async function eventFor(appId: string, type = 'consent.granted') {
  return database.prisma.outboxEvent.create({
    data: { type, appId, payload: { app: 'svc_x', sub: `ps_${'b'.repeat(32)}`, scopes: [] }, enqueuedAt: new Date() },
  });
}

async function deliveryFor(appId: string, status: 'pending' | 'succeeded' | 'failed', createdAt = new Date()) {
  const event = await eventFor(appId);
  return database.prisma.webhookDelivery.create({
    data: {
      eventId: event.id,
      appId,
      url: 'https://old.example.test/hooks',
      status,
      attempts: status === 'pending' ? 0 : 3,
      lastStatusCode: status === 'failed' ? 503 : null,
      lastError: status === 'failed' ? 'HTTP 503' : null,
      createdAt,
      nextAttemptAt: new Date(Date.now() + 3_600_000),
    },
  });
}

describe('test webhooks', () => {
  test('queue a consent.granted for a synthetic player, marked as a test', async () => {
    const { app, clientId } = await appWithWebhook();
    const { deliveryId } = await sendTestWebhook(database.prisma, { accountId: app.accountId }, app.id);
    const delivery = await database.prisma.webhookDelivery.findUniqueOrThrow({
      where: { id: deliveryId as string },
      include: { event: true },
    });
    assert.equal(delivery.status, 'pending');
    assert.equal(delivery.isTest, true);
    assert.equal(delivery.url, 'https://hooks.example.test/consent');
    assert.equal(delivery.event.type, 'consent.granted');
    assert.notEqual(delivery.event.enqueuedAt, null, 'the outbox pass must not queue it a second time');
    const data = delivery.event.payload as Record<string, unknown>;
    assert.equal(data.test, true);
    assert.equal(data.app, clientId);
    assert.match(data.sub as string, idFormats.pairwiseSubject);
    assert.ok(Array.isArray(data.scopes) && data.scopes.length > 0);
    assert.equal(await database.prisma.consent.count({ where: { id: data.consent_id as string } }), 0);
    // Every test event invents a new player.
    const second = await sendTestWebhook(database.prisma, { accountId: app.accountId }, app.id);
    const secondEvent = await database.prisma.webhookDelivery.findUniqueOrThrow({
      where: { id: second.deliveryId as string },
      include: { event: true },
    });
    assert.notEqual((secondEvent.event.payload as { sub: string }).sub, data.sub);
  });

  test('need a webhook URL', async () => {
    const { app } = await appWithWebhook(null);
    await assert.rejects(sendTestWebhook(database.prisma, { accountId: app.accountId }, app.id), (error) => {
      assert.ok(error instanceof Refusal);
      assert.equal(error.code, 'NO_WEBHOOK_URL');
      assert.match(error.message, /no webhook URL/);
      return true;
    });
    assert.equal(await database.prisma.webhookDelivery.count({ where: { appId: app.id } }), 0);
  });

  test('without a webhook URL, only for devplat listen: the event is written, no delivery made', async () => {
    const { app } = await appWithWebhook(null);
    const sent = await sendTestWebhook(database.prisma, { accountId: app.accountId }, app.id, { listening: true });
    assert.equal(sent.deliveryId, null);
    const event = await database.prisma.outboxEvent.findUniqueOrThrow({ where: { id: sent.eventId } });
    assert.equal(event.type, 'consent.granted');
    assert.equal((event.payload as { test?: boolean }).test, true);
    assert.notEqual(event.enqueuedAt, null, 'the worker never makes a delivery of it');
    assert.equal(await database.prisma.webhookDelivery.count({ where: { appId: app.id } }), 0);
  });
});

describe('delivery list', () => {
  test('newest first, optionally one status, in the console shape', async () => {
    const { app } = await appWithWebhook();
    const base = Date.now() - 60_000;
    const failed = await deliveryFor(app.id, 'failed', new Date(base));
    const succeeded = await deliveryFor(app.id, 'succeeded', new Date(base + 1000));
    const pending = await deliveryFor(app.id, 'pending', new Date(base + 2000));
    const elsewhere = await appWithWebhook();
    await deliveryFor(elsewhere.app.id, 'failed');

    const all = await listDeliveries(database.prisma, app.id);
    assert.deepEqual(
      all.map((view) => view.delivery_id),
      [pending.id, succeeded.id, failed.id],
    );
    assert.deepEqual(all[2], {
      delivery_id: failed.id,
      event_id: failed.eventId,
      event_type: 'consent.granted',
      url: 'https://old.example.test/hooks',
      status: 'failed',
      attempts: 3,
      last_status_code: 503,
      last_error: 'HTTP 503',
      created_at: new Date(base).toISOString(),
      next_attempt_at: null,
      delivered_at: null,
      replay_of: null,
      test: false,
    });
    assert.equal(all[0]?.next_attempt_at, pending.nextAttemptAt.toISOString());

    const onlyFailed = await listDeliveries(database.prisma, app.id, 'failed');
    assert.deepEqual(
      onlyFailed.map((view) => view.delivery_id),
      [failed.id],
    );
    assert.deepEqual(
      (await listDeliveries(database.prisma, app.id, 'pending')).map((view) => view.delivery_id),
      [pending.id],
    );
  });

  test('shows at most 100', async () => {
    const { app } = await appWithWebhook();
    const event = await eventFor(app.id);
    await database.prisma.webhookDelivery.createMany({
      data: Array.from({ length: 105 }, () => ({ eventId: event.id, appId: app.id, url: 'https://x.example.test/' })),
    });
    assert.equal((await listDeliveries(database.prisma, app.id)).length, 100);
  });
});

describe('replay', () => {
  test('queues the event again to the current URL, audited with the new delivery', async () => {
    const { app, developer } = await appWithWebhook('https://new.example.test/hooks');
    const failed = await deliveryFor(app.id, 'failed');
    const replayed = await replayDelivery(database.prisma, failed.id, {
      accountId: developer.id,
      requestId: 'req_0123',
    });
    assert.ok(replayed);
    const delivery = await database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: replayed.deliveryId } });
    assert.equal(delivery.status, 'pending');
    assert.equal(delivery.eventId, failed.eventId);
    assert.equal(delivery.replayOf, failed.id);
    assert.equal(delivery.url, 'https://new.example.test/hooks');
    assert.equal(delivery.attempts, 0);
    assert.ok(delivery.nextAttemptAt.getTime() <= Date.now());
    const audit = await database.prisma.auditRecord.findFirstOrThrow({
      where: { targetType: 'webhook_delivery', targetId: failed.id },
    });
    assert.equal(audit.actorType, 'account');
    assert.equal(audit.actorId, developer.id);
    assert.equal(audit.action, 'webhook.replay');
    assert.equal(audit.requestId, 'req_0123');
    assert.deepEqual(audit.details, {
      new_delivery_id: replayed.deliveryId,
      event_id: failed.eventId,
      event_type: 'consent.granted',
    });
    // The original keeps its history, and leaves the failed list: its replay is what to watch now.
    const original = await database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: failed.id } });
    assert.equal(original.status, 'failed');
    const stillFailed = await deliveryFor(app.id, 'failed');
    assert.deepEqual(
      (await listDeliveries(database.prisma, app.id, 'failed')).map((view) => view.delivery_id),
      [stillFailed.id],
    );
    await database.prisma.webhookDelivery.update({ where: { id: replayed.deliveryId }, data: { status: 'failed' } });
    assert.deepEqual(
      (await listDeliveries(database.prisma, app.id, 'failed')).map((view) => view.delivery_id).sort(),
      [stillFailed.id, replayed.deliveryId].sort(),
      'a replay that failed in turn is listed, and can be replayed',
    );
    assert.equal((await listDeliveries(database.prisma, app.id)).length, 3, 'every delivery stays in the full list');
  });

  test("another developer's delivery, an unknown one and a malformed id all answer null", async () => {
    const { app } = await appWithWebhook();
    const stranger = await appWithWebhook();
    const failed = await deliveryFor(app.id, 'failed');
    assert.equal(await replayDelivery(database.prisma, failed.id, { accountId: stranger.developer.id }), null);
    assert.equal(await replayDelivery(database.prisma, randomUUID(), { accountId: stranger.developer.id }), null);
    assert.equal(await replayDelivery(database.prisma, 'not-a-uuid', { accountId: stranger.developer.id }), null);
    assert.equal(await database.prisma.webhookDelivery.count({ where: { replayOf: failed.id } }), 0);
    assert.equal(await database.prisma.auditRecord.count({ where: { targetId: failed.id } }), 0);
  });

  test('only a failed delivery, and only while the app has a webhook URL', async () => {
    const { app, developer } = await appWithWebhook();
    for (const status of ['pending', 'succeeded'] as const) {
      const delivery = await deliveryFor(app.id, status);
      await assert.rejects(replayDelivery(database.prisma, delivery.id, { accountId: developer.id }), (error) => {
        assert.ok(error instanceof Refusal);
        assert.equal(error.code, 'DELIVERY_NOT_FAILED');
        assert.match(error.message, new RegExp(`Only a failed delivery can be replayed; this one is ${status}`));
        return true;
      });
    }
    const failed = await deliveryFor(app.id, 'failed');
    await database.prisma.app.update({ where: { id: app.id }, data: { webhookUrl: null } });
    await assert.rejects(
      replayDelivery(database.prisma, failed.id, { accountId: developer.id }),
      (error) => error instanceof Refusal && error.code === 'NO_WEBHOOK_URL',
    );
    assert.equal(await database.prisma.webhookDelivery.count({ where: { replayOf: failed.id } }), 0);
    assert.equal(
      await database.prisma.auditRecord.count({ where: { action: 'webhook.replay', actorId: developer.id } }),
      0,
    );
  });
});
