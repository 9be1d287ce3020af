// An app's rules hold at every door: createApp and editApp check every member themselves, so a door
// that does not read a developer's input (a seed, an operator's tool, a migration) cannot store an
// app the console would refuse. The console's doors (its API, its web form, the CLI through the
// API) are tested with their own wording in test/console.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper, createTestApp } from '@devplat/test/apps';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { createApp, editApp } from '../src/apps/index.ts';
import { Refusal, type RefusalCode } from '../src/refusal.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

const directory = { changed: async () => {} };

async function refusedWith(code: RefusalCode, work: Promise<unknown>, detail: RegExp) {
  await assert.rejects(work, (error) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, code);
    assert.match(error.detail, detail);
    return true;
  });
}

describe("an app's rules, in createApp and editApp whoever calls them", () => {
  const valid = { name: 'Ruled', redirectUris: ['https://app.example/cb'], scopes: ['city.public.read'] };

  test('creating: the name, the redirect URIs, the scopes and the webhook URL are each checked', async () => {
    const developer = await createDeveloper(database.prisma);
    const create = (changes: object) =>
      createApp(database.prisma, { accountId: developer.id }, { accountId: developer.id, ...valid, ...changes });
    await refusedWith('INVALID_INPUT', create({ name: 'x'.repeat(101) }), /^name may be at most 100 characters\.$/);
    await refusedWith('INVALID_INPUT', create({ name: '  ' }), /^name must not be empty\.$/);
    await refusedWith('INVALID_REDIRECT_URI', create({ redirectUris: ['http://app.example/cb'] }), /http only on/);
    await refusedWith('UNKNOWN_SCOPE', create({ scopes: ['city.private.write'] }), /Unknown scope/);
    await refusedWith('WEBHOOK_URL_REFUSED', create({ webhookUrl: 'http://hooks.example/consent' }), /^webhook_url /);
    await refusedWith(
      'WEBHOOK_URL_REFUSED',
      create({ webhookUrl: 'http://127.0.0.1:9000/hook' }),
      /devplat listen <client_id> --forward-to http:\/\/127\.0\.0\.1:9000\/hook/,
    );
    assert.equal(await database.prisma.app.count({ where: { accountId: developer.id } }), 0, 'none was made');
    const { app } = await create({ name: '  Ruled  ', webhookUrl: 'https://hooks.example/consent' });
    assert.equal(app.name, 'Ruled', 'kept as the rules read it');
  });

  test('editing: a member given is checked as at creation; loopback http only where the settings allow it', async () => {
    const { app } = await createTestApp(database.prisma);
    const edit = (changes: object, settings: object = {}) =>
      editApp(
        database.prisma,
        directory,
        { accountId: app.accountId },
        app.id,
        { ...changes, ...settings },
        'p'.repeat(32),
      );
    await refusedWith('INVALID_INPUT', edit({ name: 'x'.repeat(101) }), /^name may be at most 100 characters\.$/);
    await refusedWith('WEBHOOK_URL_REFUSED', edit({ webhookUrl: 'http://127.0.0.1:9000/hook' }), /^webhook_url /);
    const edited = await edit({ webhookUrl: 'http://127.0.0.1:9000/hook' }, { webhooks: { allowLoopbackHttp: true } });
    assert.equal(edited.app.webhookUrl, 'http://127.0.0.1:9000/hook');
  });
});
