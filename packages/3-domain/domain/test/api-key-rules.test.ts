// An API key's rules hold at every door: createApiKey checks every member itself, so a door that
// does not read a developer's input cannot make a key the console would refuse. The console's doors
// are tested with their own wording in test/console/api-keys.test.ts.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createDeveloper } from '@devplat/test/apps';
import { checkedApiKey, createApiKey } from '../src/api-keys/index.ts';
import { Refusal } from '../src/refusal.ts';
import { ownDatabase, refusedWith } from './rules-support.ts';

const database = ownDatabase();

const dayMs = 24 * 60 * 60 * 1000;

describe("an API key's rules, in createApiKey whoever calls it", () => {
  test('the name, the scope and the lifetime are each checked, in that order', async () => {
    const developer = await createDeveloper(database.prisma);
    const create = (request: object) =>
      createApiKey(database.prisma, { accountId: developer.id }, {
        name: 'CI',
        scope: 'read',
        ...request,
      } as Parameters<typeof createApiKey>[2]);
    const lifetime =
      'expires_in_days must be a whole number of days from 1 to 365 (365 is the longest a key may live; 30 when not given).';
    const refusals: [object, string][] = [
      [{ name: undefined }, 'name is required and must be a string.'],
      [{ name: ' ' }, 'name must not be empty.'],
      [{ name: 'x'.repeat(65) }, 'name may be at most 64 characters.'],
      [{ scope: undefined }, 'scope is required: read or write.'],
      [{ scope: 'admin' }, 'scope is required: read or write.'],
      [{ days: 0 }, lifetime],
      [{ days: 366 }, lifetime],
      [{ days: 1.5 }, lifetime],
      [{ days: '30' }, lifetime],
      [{ name: '', scope: 'admin', days: 0 }, 'name must not be empty.'],
      [{ scope: 'admin', days: 0 }, 'scope is required: read or write.'],
    ];
    for (const [request, detail] of refusals) await refusedWith('INVALID_INPUT', create(request), detail);
    assert.equal(await database.prisma.apiKey.count({ where: { accountId: developer.id } }), 0, 'none was made');

    const made = await create({ name: '  Deploy  ', scope: 'write' });
    assert.ok('apiKey' in made);
    assert.deepEqual([made.apiKey.name, made.apiKey.scope], ['Deploy', 'write'], 'kept as the rules read them');
    const lived = made.apiKey.expiresAt.getTime() - made.apiKey.createdAt.getTime();
    assert.equal(lived, 30 * dayMs, 'the default lifetime when none is given');
  });

  test('checkedApiKey is the same check, without a database', () => {
    assert.deepEqual(checkedApiKey({ name: 'CI', scope: 'read', days: 365 }), { name: 'CI', scope: 'read', days: 365 });
    assert.throws(
      () => checkedApiKey({ name: 'CI', scope: 'read', days: 366 }),
      (error) => error instanceof Refusal && error.detail.startsWith('expires_in_days must be a whole number'),
    );
  });
});
