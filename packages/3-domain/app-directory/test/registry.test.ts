// A change to an app and its audit record commit together or not at all, and a change that changes
// nothing records nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addSecret, createApp, disableApp, revokeSecret } from '@devplat/domain/apps';
import { memoryStore } from '@devplat/kv';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { appDirectory } from '../src/index.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

// PostgreSQL refuses a NUL character in text: an audit record with one in its request id cannot be
// written, so the change it records must not commit either.
const unrecordable = { accountId: 'nobody', requestId: 'req_\u0000' };

async function newApp(name: string) {
  const account = await database.prisma.account.create({
    data: { email: `${name}@example.com`, passwordHash: 'x', displayName: name, kind: 'full' },
  });
  const { app } = await createApp(
    database.prisma,
    { accountId: account.id },
    {
      accountId: account.id,
      name,
      redirectUris: [],
      scopes: ['city.public.read'],
    },
  );
  return { account, app };
}

const auditedActions = async (targetId: string) =>
  (await database.prisma.auditRecord.findMany({ where: { targetId }, orderBy: { createdAt: 'asc' } })).map(
    (record) => record.action,
  );

describe('the audit record commits with its change', () => {
  test('creating an app: an audit record that cannot be written leaves no app', async () => {
    const account = await database.prisma.account.create({
      data: { email: 'none@example.com', passwordHash: 'x', displayName: 'None', kind: 'full' },
    });
    const input = { accountId: account.id, name: 'Never', redirectUris: [], scopes: ['city.public.read'] };
    await assert.rejects(createApp(database.prisma, unrecordable, input));
    assert.equal(await database.prisma.app.count({ where: { accountId: account.id } }), 0);
  });

  test('rotating and revoking a secret, disabling an app: an audit record that cannot be written undoes the change', async () => {
    const { app } = await newApp('undone');
    const directory = appDirectory(database.prisma, memoryStore());
    await assert.rejects(addSecret(database.prisma, directory, unrecordable, app.id));
    assert.equal(await database.prisma.clientSecret.count({ where: { appId: app.id } }), 1);
    const [secret] = await database.prisma.clientSecret.findMany({ where: { appId: app.id } });
    await assert.rejects(revokeSecret(database.prisma, directory, unrecordable, app.id, secret!.id));
    assert.equal(
      (await database.prisma.clientSecret.findUniqueOrThrow({ where: { id: secret!.id } })).status,
      'active',
    );
    await assert.rejects(disableApp(database.prisma, directory, unrecordable, app.id));
    assert.equal((await database.prisma.app.findUniqueOrThrow({ where: { id: app.id } })).status, 'active');
  });

  test('each change is recorded with what it made, and only when something changed', async () => {
    const { app, account } = await newApp('recorded');
    const directory = appDirectory(database.prisma, memoryStore());
    const by = { accountId: account.id, requestId: 'req_recorded' };
    const { secretId } = await addSecret(database.prisma, directory, by, app.id);
    assert.deepEqual(await auditedActions(secretId), ['secret.create']);
    assert.equal(await revokeSecret(database.prisma, directory, by, app.id, secretId), true);
    assert.equal(await revokeSecret(database.prisma, directory, by, app.id, secretId), false);
    assert.equal(await disableApp(database.prisma, directory, by, app.id), true);
    assert.equal(await disableApp(database.prisma, directory, by, app.id), false);
    assert.deepEqual(await auditedActions(secretId), ['secret.create', 'secret.revoke']);
    assert.deepEqual(await auditedActions(app.id), ['app.create', 'app.disable']);
    const [disabled] = await database.prisma.auditRecord.findMany({
      where: { targetId: app.id, action: 'app.disable' },
    });
    assert.equal(disabled?.actorType, 'account');
    assert.equal(disabled?.actorId, account.id);
    assert.equal(disabled?.requestId, 'req_recorded');
    assert.deepEqual(disabled?.details, { client_id: app.clientId });
  });
});

describe('a secret rotation across PostgreSQL and the store', () => {
  /** The directory with its store down for the first `failures` bumps (a failed WAIT, a dead primary). */
  const flaky = (failures: number) => {
    const directory = appDirectory(database.prisma, memoryStore());
    let left = failures;
    return {
      ...directory,
      changed: (clientId: string) =>
        left-- > 0 ? Promise.reject(new Error('store down')) : directory.changed(clientId),
    };
  };

  test('the store down before the change: nothing is made, and the retry gets the app’s second secret', async () => {
    const { app, account } = await newApp('store-down');
    const by = { accountId: account.id, requestId: 'req_store_down' };
    await assert.rejects(addSecret(database.prisma, flaky(1), by, app.id), /store down/);
    assert.equal(await database.prisma.clientSecret.count({ where: { appId: app.id } }), 1);
    const retried = await addSecret(database.prisma, flaky(0), by, app.id);
    assert.equal(await database.prisma.clientSecret.count({ where: { appId: app.id, status: 'active' } }), 2);
    assert.match(retried.clientSecret, /\S{20,}/);
  });

  test('the store down after the commit: the secret made is answered, not lost behind a refusal', async () => {
    const { app, account } = await newApp('store-down-after');
    const by = { accountId: account.id, requestId: 'req_store_down_after' };
    const directory = flaky(0);
    let bumps = 0;
    const downAfterFirst = {
      ...directory,
      changed: (clientId: string) => (bumps++ === 0 ? directory.changed(clientId) : Promise.reject(new Error('down'))),
    };
    const { secretId } = await addSecret(database.prisma, downAfterFirst, by, app.id);
    assert.equal(bumps, 2, 'bumped before and after');
    assert.equal((await database.prisma.clientSecret.findUniqueOrThrow({ where: { id: secretId } })).status, 'active');
  });
});
