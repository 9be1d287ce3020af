// A sandbox player's rules hold at every door: createPlayer checks every member itself, so a door
// that does not read a developer's input (a seed, an operator's tool) cannot store a player the
// console would refuse. The console's doors are tested with their own wording in test/console.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { verifyPassword } from '@devplat/passwords';
import { createDeveloper } from '@devplat/test/apps';
import { checkedPlayer, createPlayer } from '../src/players/index.ts';
import { Refusal } from '../src/refusal.ts';
import { ownDatabase, refusedWith } from './rules-support.ts';

const database = ownDatabase();

const aUsername = () => `rules-${randomUUID().slice(0, 8)}`;

describe("a player's rules, in createPlayer whoever calls it", () => {
  const valid = { password: 'player password', displayName: 'Ada' };

  test('the username, the password and the display name are each checked, in that order', async () => {
    const developer = await createDeveloper(database.prisma);
    const create = (changes: object) =>
      createPlayer(database.prisma, { accountId: developer.id }, {
        accountId: developer.id,
        username: aUsername(),
        ...valid,
        ...changes,
      } as Parameters<typeof createPlayer>[2]);
    const shape = 'username must be 3 to 32 characters: lower-case letters, digits, and _ . - (not first).';
    const refusals: [object, string][] = [
      [{ username: undefined }, 'username is required and must be a string.'],
      [{ username: 'Ada' }, shape],
      [{ username: 'ab' }, shape],
      [{ username: '_ada' }, shape],
      [{ username: 'a'.repeat(33) }, 'username may be at most 32 characters.'],
      [{ password: undefined }, 'password is required and must be a string.'],
      [{ password: 'x'.repeat(7) }, 'password must be at least 8 characters.'],
      [{ password: 'x'.repeat(129) }, 'password may be at most 128 characters.'],
      [{ displayName: 'x'.repeat(65) }, 'display_name may be at most 64 characters.'],
      [{ displayName: 'A\u202eB' }, 'display_name must not contain control or formatting characters.'],
      [{ username: 'A', password: 'short', displayName: 'x'.repeat(65) }, shape],
      [{ password: 'short', displayName: 'x'.repeat(65) }, 'password must be at least 8 characters.'],
    ];
    for (const [changes, detail] of refusals) await refusedWith('INVALID_INPUT', create(changes), detail);
    assert.equal(await database.prisma.sandboxPlayer.count({ where: { accountId: developer.id } }), 0, 'none was made');

    const username = aUsername();
    const player = await create({ username: ` ${username} `, displayName: '' });
    assert.deepEqual([player.username, player.displayName], [username, null], 'kept as the rules read them');
    assert.equal(await verifyPassword(valid.password, player.passwordHash), true);
    await refusedWith('USERNAME_TAKEN', create({ username }), `The username ${username} is taken. Choose another.`);
  });

  test('checkedPlayer is the same check, without a database', () => {
    assert.throws(
      () => checkedPlayer({ username: 'Ada', password: 'player password', displayName: null }),
      (error) => error instanceof Refusal && error.code === 'INVALID_INPUT' && /^username must be 3/.test(error.detail),
    );
    assert.deepEqual(checkedPlayer({ username: 'ada', password: 'player password', displayName: ' Ada ' }), {
      username: 'ada',
      password: 'player password',
      displayName: 'Ada',
    });
  });
});
