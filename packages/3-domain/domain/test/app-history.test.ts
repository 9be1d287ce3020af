// An app's history (appHistory): every operation that concerns one app records it as that app's,
// and the history reads that app's records alone, newest first, a page at a time. The platform's
// changes are there as the operator's; a player's consents ended across apps are in no app's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { AuditRecord } from '@devplat/db';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { createPlayer } from '@devplat/test/players';
import {
  addSecret,
  deleteApp,
  disableApp,
  editApp,
  enableApp,
  revokeSecret,
  suspendApp,
  unsuspendApp,
} from '../src/apps/index.ts';
import { appHistory, queryAudit } from '../src/audit/index.ts';
import { endAppConsents, endConsentByOperator, endPlayerConsents, grantConsent } from '../src/consents/index.ts';
import { replayDelivery } from '../src/events/index.ts';
import { Refusal } from '../src/refusal.ts';
import { sendTestWebhook } from '../src/workflows/index.ts';

const pairwiseSecret = 'p'.repeat(32);
const operator = { operator: 'ops-dana' };
const directory = { changed: async () => {} };

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

type TestApp = Awaited<ReturnType<typeof createTestApp>>;

const consentOf = (app: TestApp, playerId: string) =>
  grantConsent(database.prisma, pairwiseSecret, {
    app: app.app,
    playerId,
    grantId: randomUUID(),
    scopes: ['profile.basic.read'],
  });

/** Every record of the app's history, following the cursors, `limit` a page. */
async function wholeHistory(appId: string, limit?: number): Promise<AuditRecord[][]> {
  const pages: AuditRecord[][] = [];
  let cursor: string | undefined;
  do {
    const { items, nextCursor } = await appHistory(database.prisma, appId, { limit, cursor });
    pages.push(items);
    cursor = nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

/** Newest first by (created_at, id): records of the same millisecond by id. */
const newestFirst = (a: AuditRecord, b: AuditRecord) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

function refused(detail: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, 'INVALID_INPUT');
    assert.match(error.detail, detail);
    return true;
  };
}

describe('appHistory', () => {
  test("every operation on an app is in its history, and only there, with who did it; a player's consents ended across apps are in each app's", async () => {
    const app = await createTestApp(database.prisma, { scopes: ['city.public.read'] });
    const neighbour = await createTestApp(database.prisma);
    const developer = { accountId: app.developer.id, requestId: `req_${'a'.repeat(32)}` };
    const appId = app.app.id;
    const [firstSecret] = app.app.secrets;

    const { secretId } = await addSecret(database.prisma, directory, developer, appId);
    await revokeSecret(database.prisma, directory, developer, appId, firstSecret?.id as string);
    await editApp(
      database.prisma,
      directory,
      developer,
      appId,
      { scopes: ['city.public.read', 'profile.basic.read'], webhookUrl: 'https://hooks.example.test/consent' },
      pairwiseSecret,
    );
    await disableApp(database.prisma, directory, developer, appId);
    await enableApp(database.prisma, directory, developer, appId);
    const { deliveryId } = await sendTestWebhook(database.prisma, developer, appId);
    await database.prisma.webhookDelivery.update({ where: { id: deliveryId as string }, data: { status: 'failed' } });
    const replay = await replayDelivery(database.prisma, deliveryId as string, developer);
    await suspendApp(database.prisma, directory, operator, appId, { reason: 'internal ticket 7' });
    await unsuspendApp(database.prisma, directory, operator, appId);
    const players = await Promise.all([1, 2, 3].map(() => createPlayer(database.prisma, app.developer.id)));
    const [one, two, three] = players.map(({ player }) => player);
    const single = await consentOf(app, one?.id as string);
    await endConsentByOperator(database.prisma, pairwiseSecret, operator, single.id);
    await consentOf(app, two?.id as string);
    await endAppConsents(database.prisma, pairwiseSecret, operator, app.app);
    // One player's consents with both apps, ended by the platform: in both apps' histories.
    await consentOf(app, three?.id as string);
    await consentOf(neighbour, three?.id as string);
    await endPlayerConsents(database.prisma, pairwiseSecret, operator, three as { id: string; username: string });
    await deleteApp(database.prisma, directory, developer, appId, pairwiseSecret);
    await addSecret(database.prisma, directory, { accountId: neighbour.developer.id }, neighbour.app.id);

    const [history, ...more] = await wholeHistory(appId);
    assert.deepEqual(more, [], 'one page of the default 50');
    const records = history as AuditRecord[];
    assert.deepEqual(records, records.toSorted(newestFirst), 'newest first');
    const seen = records
      .toSorted((a, b) => -newestFirst(a, b))
      .map(({ action, actorType, actorId, targetId }) => ({ action, actorType, actorId, targetId }));
    const byDeveloper = (action: string, targetId = appId) => ({
      action,
      actorType: 'account',
      actorId: app.developer.id,
      targetId,
    });
    const byPlatform = (action: string, targetId = appId) => ({
      action,
      actorType: 'operator',
      actorId: 'ops-dana',
      targetId,
    });
    assert.deepEqual(
      seen.toSorted((a, b) => a.action.localeCompare(b.action) || a.targetId.localeCompare(b.targetId)),
      [
        byDeveloper('app.create'),
        byDeveloper('secret.create', secretId),
        byDeveloper('secret.revoke', firstSecret?.id),
        byDeveloper('app.edit'),
        byDeveloper('app.disable'),
        byDeveloper('app.enable'),
        byDeveloper('webhook.test', records.find((record) => record.action === 'webhook.test')?.targetId),
        byDeveloper('webhook.replay', deliveryId as string),
        byPlatform('app.suspend'),
        byPlatform('app.unsuspend'),
        byPlatform('consent.end', single.id),
        byPlatform('app.consents_end'),
        byPlatform('player.consents_end', three?.id),
        byDeveloper('app.delete'),
      ].toSorted((a, b) => a.action.localeCompare(b.action) || String(a.targetId).localeCompare(String(b.targetId))),
    );
    const replayed = records.find((record) => record.action === 'webhook.replay');
    assert.equal((replayed?.details as { new_delivery_id?: string } | undefined)?.new_delivery_id, replay?.deliveryId);
    assert.equal(replayed?.requestId, developer.requestId, "the developer's request");

    const neighbours = (await wholeHistory(neighbour.app.id)).flat();
    assert.deepEqual(
      neighbours.map((record) => record.action).toSorted(),
      ['app.create', 'player.consents_end', 'secret.create'],
      "the neighbour's history has its own records only",
    );
    const playerEnds = await database.prisma.auditRecord.findMany({
      where: { action: 'player.consents_end', targetId: three?.id },
    });
    assert.deepEqual(
      playerEnds
        .map((record) => [record.appId, (record.details as { client_id?: string }).client_id])
        .toSorted((a, b) => String(a[0]).localeCompare(String(b[0]))),
      [
        [appId, app.clientId],
        [neighbour.app.id, neighbour.clientId],
      ].toSorted((a, b) => String(a[0]).localeCompare(String(b[0]))),
      "one record for each app the player's end touched",
    );
  });

  test('pages newest first by (created_at, id): no record skipped or repeated; a cursor of another listing and a bad limit are refused', async () => {
    const appId = (await createTestApp(database.prisma)).app.id;
    const other = (await createTestApp(database.prisma)).app.id;
    const at = (second: number) => new Date(Date.UTC(2026, 10, 20, 9, 0, second));
    // Two records share a millisecond: id orders them.
    const seconds = [1, 2, 3, 3, 4, 5, 6];
    await database.prisma.auditRecord.createMany({
      data: [
        ...seconds.map((second, index) => ({
          actorType: 'operator',
          actorId: 'ops',
          action: `app.test_${index}`,
          targetType: 'app',
          targetId: appId,
          appId,
          createdAt: at(second),
        })),
        {
          actorType: 'operator',
          actorId: 'ops',
          action: 'app.elsewhere',
          targetType: 'app',
          targetId: other,
          appId: other,
        },
      ],
    });
    const all = (await wholeHistory(appId, 200)).flat().filter((record) => record.action.startsWith('app.test_'));
    assert.equal(all.length, seconds.length);
    assert.deepEqual(all, all.toSorted(newestFirst));
    assert.ok(
      all.every((record, index) => index === 0 || record.createdAt <= (all[index - 1] as AuditRecord).createdAt),
    );

    // app.create is the newest (now); pages of 2 follow the same order, nothing twice.
    const pages = await wholeHistory(appId, 2);
    assert.deepEqual(
      pages.map((page) => page.length),
      [2, 2, 2, 2],
    );
    assert.deepEqual(
      pages.flat().map((record) => record.id),
      (await wholeHistory(appId, 200)).flat().map((record) => record.id),
    );
    assert.equal(pages[0]?.[0]?.action, 'app.create', 'the newest first');
    assert.ok(
      pages.flat().every((record) => record.appId === appId),
      'none of another app',
    );

    const { nextCursor: auditCursor } = await queryAudit(database.prisma, { limit: 1 });
    await assert.rejects(
      appHistory(database.prisma, appId, { cursor: auditCursor as string }),
      refused(/cursor is not one this listing gave/),
    );
    await assert.rejects(appHistory(database.prisma, appId, { cursor: 'nonsense' }), refused(/cursor/));
    for (const limit of [0, 201, 1.5]) {
      await assert.rejects(
        appHistory(database.prisma, appId, { limit }),
        refused(/limit must be an integer from 1 to 200/),
      );
    }
  });

  test("the migration's backfill puts records written before the column into their app's history", async () => {
    const { app } = await createTestApp(database.prisma, { scopes: ['city.public.read'] });
    const event = await database.prisma.outboxEvent.create({
      data: { type: 'consent.granted', appId: app.id, payload: {} },
    });
    const delivery = await database.prisma.webhookDelivery.create({
      data: { eventId: event.id, appId: app.id, url: 'https://hooks.example.test/', status: 'failed' },
    });
    const old = {
      actorType: 'account',
      actorId: app.accountId,
      appId: null,
      createdAt: new Date('2026-01-01T00:00:00Z'),
    };
    await database.prisma.auditRecord.createMany({
      data: [
        {
          ...old,
          action: 'secret.revoke',
          targetType: 'client_secret',
          targetId: randomUUID(),
          details: { client_id: app.clientId },
        },
        { ...old, action: 'webhook.replay', targetType: 'webhook_delivery', targetId: delivery.id, details: {} },
        // Not the app's: another app's client id, an account's record naming no app.
        {
          ...old,
          action: 'app.disable',
          targetType: 'app',
          targetId: randomUUID(),
          details: { client_id: 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaa' },
        },
        {
          ...old,
          action: 'account.register',
          targetType: 'account',
          targetId: app.accountId,
          details: { client_id: app.clientId },
        },
      ],
    });
    const migrations = new URL('../../../../prisma/migrations/', import.meta.url);
    const [name] = readdirSync(migrations).filter((entry) => entry.endsWith('_audit_records_app_id'));
    const sql = readFileSync(new URL(`${name}/migration.sql`, migrations), 'utf8');
    const backfill = sql.slice(sql.indexOf('-- Backfill'));
    for (const statement of backfill.split(';').map((text) => text.replace(/^\s*--.*$/gm, '').trim())) {
      if (statement) await database.prisma.$executeRawUnsafe(statement);
    }
    const history = (await wholeHistory(app.id)).flat();
    assert.deepEqual(history.map((record) => record.action).toSorted(), [
      'app.create',
      'secret.revoke',
      'webhook.replay',
    ]);
  });
});
