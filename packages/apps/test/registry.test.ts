// What must commit with a change to an app (its audit record) commits with it or not at all, and
// runs only when the change changed something.
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

const failing = async () => {
  throw new Error('the audit record could not be written');
};

async function newApp(name: string) {
  const account = await database.prisma.account.create({
    data: { email: `${name}@example.com`, passwordHash: 'x', displayName: name, kind: 'full' },
  });
  const { app } = await createApp(database.prisma, {
    accountId: account.id,
    name,
    redirectUris: [],
    scopes: ['city.public.read'],
  });
  return { account, app };
}

describe('work in the transaction of a change', () => {
  test('creating an app: a failure of the work leaves no app', async () => {
    const account = await database.prisma.account.create({
      data: { email: 'none@example.com', passwordHash: 'x', displayName: 'None', kind: 'full' },
    });
    const input = { accountId: account.id, name: 'Never', redirectUris: [], scopes: ['city.public.read'] };
    await assert.rejects(createApp(database.prisma, input, failing), /could not be written/);
    assert.equal(await database.prisma.app.count({ where: { accountId: account.id } }), 0);
  });

  test('rotating and revoking a secret, disabling an app: a failure of the work undoes the change', async () => {
    const { app } = await newApp('undone');
    const directory = appDirectory(database.prisma, memoryStore());
    await assert.rejects(addSecret(database.prisma, directory, app.id, failing));
    assert.equal(await database.prisma.clientSecret.count({ where: { appId: app.id } }), 1);
    const [secret] = await database.prisma.clientSecret.findMany({ where: { appId: app.id } });
    await assert.rejects(revokeSecret(database.prisma, directory, app.id, secret!.id, failing));
    assert.equal(
      (await database.prisma.clientSecret.findUniqueOrThrow({ where: { id: secret!.id } })).status,
      'active',
    );
    await assert.rejects(disableApp(database.prisma, directory, app.id, failing));
    assert.equal((await database.prisma.app.findUniqueOrThrow({ where: { id: app.id } })).status, 'active');
  });

  test('the work sees what the change made, and runs only when something changed', async () => {
    const { app } = await newApp('recorded');
    const directory = appDirectory(database.prisma, memoryStore());
    const seen: string[] = [];
    const { secretId } = await addSecret(database.prisma, directory, app.id, async (tx, secret) => {
      seen.push(`secret ${(await tx.clientSecret.findUniqueOrThrow({ where: { id: secret.id } })).status}`);
    });
    const record = (what: string) => async () => void seen.push(what);
    assert.equal(await revokeSecret(database.prisma, directory, app.id, secretId, record('revoked')), true);
    assert.equal(await revokeSecret(database.prisma, directory, app.id, secretId, record('revoked again')), false);
    assert.equal(await disableApp(database.prisma, directory, app.id, record('disabled')), true);
    assert.equal(await disableApp(database.prisma, directory, app.id, record('disabled again')), false);
    assert.deepEqual(seen, ['secret active', 'revoked', 'disabled']);
  });
});
