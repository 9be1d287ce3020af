// A client id no app can have (a NUL, a lone surrogate: @devplat/db's storableText) names no app:
// the per-request read answers null without a query, so client authentication fails as for any
// unknown client (401 invalid_client) and the consent screen refuses it, never a 500.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { memoryStore } from '@devplat/kv';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { appDirectory, findUsableApp } from '../src/index.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

test('a client id no app can have finds no app, through the directory too', async () => {
  const directory = appDirectory(database.prisma, memoryStore());
  for (const clientId of ['svc_x\u0000', 'svc_x\ud800', '\u0000']) {
    assert.equal(await findUsableApp(database.prisma, clientId), null, JSON.stringify(clientId));
    assert.equal(await directory.find(clientId), null, JSON.stringify(clientId));
  }
});
