// The platform's suspension of one app (suspendApp, unsuspendApp): what changes, what it records,
// what its developer can no longer do, and where unsuspending returns the app.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
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
import { grantConsent } from '../src/consents/index.ts';
import { Refusal, type RefusalCode } from '../src/refusal.ts';

const pairwiseSecret = 'p'.repeat(32);
const operator = { operator: 'ops-alice' };

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

/** The app directory, as the apps room tells it: the client ids it was told of, in order. */
function directory() {
  const told: string[] = [];
  return { told, changed: async (clientId: string) => void told.push(clientId) };
}

/** The operators' audit records of a target, oldest first. */
const records = async (targetId: string) =>
  (
    await database.prisma.auditRecord.findMany({
      where: { targetId, actorType: 'operator' },
      orderBy: { createdAt: 'asc' },
    })
  ).map(({ actorType, actorId, action, details }) => ({ actorType, actorId, action, details }));

const appRow = (id: string) => database.prisma.app.findUniqueOrThrow({ where: { id } });

async function refusedWith(code: RefusalCode, work: Promise<unknown>, detail?: RegExp) {
  await assert.rejects(work, (error) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, code);
    if (detail) assert.match(error.detail, detail);
    return true;
  });
}

describe('suspendApp', () => {
  test("stops an active app, tells the directory, keeps its consents, and records the operator's reason once", async () => {
    const { app, developer } = await createTestApp(database.prisma, { scopes: ['profile.basic.read'] });
    const { player } = await createPlayer(database.prisma, developer.id);
    const consent = await grantConsent(database.prisma, pairwiseSecret, {
      app,
      playerId: player.id,
      grantId: randomUUID(),
      scopes: ['profile.basic.read'],
    });
    const told = directory();

    assert.equal(await suspendApp(database.prisma, told, operator, app.id, { reason: 'ticket 7' }), true);
    const suspended = await appRow(app.id);
    assert.equal(suspended.status, 'suspended');
    assert.ok(suspended.suspendedAt instanceof Date);
    assert.deepEqual(told.told, [app.clientId, app.clientId], 'told before and after the change');
    const consentRow = await database.prisma.consent.findUniqueOrThrow({ where: { id: consent.id } });
    assert.equal(consentRow.status, 'active', 'its consents pause, they do not end');
    const suspension = {
      actorType: 'operator',
      actorId: 'ops-alice',
      action: 'app.suspend',
      details: { client_id: app.clientId, reason: 'ticket 7' },
    };
    assert.deepEqual(await records(app.id), [suspension]);

    assert.equal(await suspendApp(database.prisma, directory(), operator, app.id), false);
    assert.deepEqual(await records(app.id), [suspension], 'nothing recorded the second time');
  });

  test('an app unknown or deleted is APP_NOT_FOUND', async () => {
    await refusedWith('APP_NOT_FOUND', suspendApp(database.prisma, directory(), operator, randomUUID()));
    const { app } = await createTestApp(database.prisma);
    await deleteApp(database.prisma, directory(), operator, app.id, pairwiseSecret);
    await refusedWith('APP_NOT_FOUND', suspendApp(database.prisma, directory(), operator, app.id));
    await refusedWith('APP_NOT_FOUND', unsuspendApp(database.prisma, directory(), operator, app.id));
  });
});

describe('a suspended app and its developer', () => {
  test('enable, disable, edit and rotation are refused with APP_SUSPENDED and change nothing', async () => {
    const { app, developer } = await createTestApp(database.prisma);
    const actor = { accountId: developer.id };
    await suspendApp(database.prisma, directory(), operator, app.id);
    const suspendedDetail = new RegExp(`The app ${app.clientId} is suspended by the platform`);
    await refusedWith('APP_SUSPENDED', enableApp(database.prisma, directory(), actor, app.id), suspendedDetail);
    await refusedWith('APP_SUSPENDED', disableApp(database.prisma, directory(), actor, app.id), suspendedDetail);
    const rename = editApp(database.prisma, directory(), actor, app.id, { name: 'Renamed' }, pairwiseSecret);
    await refusedWith('APP_SUSPENDED', rename, suspendedDetail);
    await refusedWith('APP_SUSPENDED', addSecret(database.prisma, directory(), actor, app.id), suspendedDetail);
    const row = await database.prisma.app.findUniqueOrThrow({ where: { id: app.id }, include: { secrets: true } });
    assert.equal(row.status, 'suspended');
    assert.equal(row.name, 'Test App');
    assert.equal(row.secrets.length, 1);
    const actions = await database.prisma.auditRecord.findMany({
      where: { targetId: app.id },
      select: { action: true },
    });
    assert.deepEqual(actions.map((record) => record.action).sort(), ['app.create', 'app.suspend']);
  });

  test('revoking a secret and deleting the app stay open to the developer', async () => {
    const { app, developer } = await createTestApp(database.prisma);
    const actor = { accountId: developer.id };
    await suspendApp(database.prisma, directory(), operator, app.id);
    const [secret] = app.secrets;
    assert.equal(await revokeSecret(database.prisma, directory(), actor, app.id, secret?.id as string), true);
    assert.equal(await deleteApp(database.prisma, directory(), actor, app.id, pairwiseSecret), true);
    assert.equal((await appRow(app.id)).status, 'deleted');
  });
});

describe('unsuspendApp', () => {
  test('returns an app to active, recorded with the status; a second time changes and records nothing', async () => {
    const { app } = await createTestApp(database.prisma);
    await suspendApp(database.prisma, directory(), operator, app.id);
    const told = directory();
    const by = { operator: 'ops-bob' };
    assert.equal(await unsuspendApp(database.prisma, told, by, app.id, { reason: 'appeal granted' }), true);
    const row = await appRow(app.id);
    assert.equal(row.status, 'active');
    assert.equal(row.suspendedAt, null);
    assert.deepEqual(told.told, [app.clientId, app.clientId]);
    const lifted = {
      actorType: 'operator',
      actorId: 'ops-bob',
      action: 'app.unsuspend',
      details: { client_id: app.clientId, status: 'active', reason: 'appeal granted' },
    };
    assert.deepEqual((await records(app.id)).at(-1), lifted);
    assert.equal(await unsuspendApp(database.prisma, directory(), by, app.id), false);
    assert.equal((await records(app.id)).filter((record) => record.action === 'app.unsuspend').length, 1);
  });

  test('returns an app its developer had disabled to disabled, and the developer can enable it again', async () => {
    const { app, developer } = await createTestApp(database.prisma);
    const actor = { accountId: developer.id };
    await disableApp(database.prisma, directory(), actor, app.id);
    assert.equal(await suspendApp(database.prisma, directory(), operator, app.id), true);
    assert.equal(await unsuspendApp(database.prisma, directory(), operator, app.id), true);
    assert.equal((await appRow(app.id)).status, 'disabled');
    assert.deepEqual((await records(app.id)).at(-1)?.details, { client_id: app.clientId, status: 'disabled' });
    assert.equal(await enableApp(database.prisma, directory(), actor, app.id), true);
    assert.equal((await appRow(app.id)).status, 'active');
  });
});
