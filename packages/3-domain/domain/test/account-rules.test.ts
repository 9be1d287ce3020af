// A developer account's rules hold at every door: registerAccount checks every member itself, so a
// door that does not read a developer's input (a seed, an operator's tool, a benchmark's fixture)
// cannot store an account the console would refuse. The console's doors (its API, its web form) are
// tested with their own wording in test/console.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { verifyPassword } from '@devplat/passwords';
import { checkedAccount, registerAccount } from '../src/accounts/index.ts';
import { Refusal } from '../src/refusal.ts';
import { ownDatabase, refusedWith } from './rules-support.ts';

const database = ownDatabase();

const address = () => `rules-${randomUUID()}@developer.test`;

describe("an account's rules, in registerAccount whoever calls it", () => {
  const valid = { displayName: 'Ada', password: 'a long enough password' };
  const register = (changes: object) =>
    registerAccount(database.prisma, { email: address(), ...valid, ...changes } as Parameters<
      typeof registerAccount
    >[1]);

  test('the e-mail address, the password and the display name are each checked, in that order', async () => {
    const refusals: [object, string][] = [
      [{ email: undefined }, 'email is required and must be a string.'],
      [{ email: 'ada.example.test' }, 'email must be an e-mail address.'],
      [{ email: 'ada@localhost' }, 'email must be an e-mail address.'],
      [{ email: `${'a'.repeat(250)}@x.io` }, 'email may be at most 254 characters.'],
      [{ password: undefined }, 'password is required and must be a string.'],
      [{ password: 'x'.repeat(11) }, 'password must be at least 12 characters.'],
      [{ password: 'x'.repeat(129) }, 'password may be at most 128 characters.'],
      [{ displayName: '  ' }, 'display_name must not be empty.'],
      [{ displayName: 'x'.repeat(65) }, 'display_name may be at most 64 characters.'],
      [{ email: 'not an address', password: 'short', displayName: '' }, 'email must be an e-mail address.'],
      [{ password: 'short', displayName: '' }, 'password must be at least 12 characters.'],
    ];
    const before = await database.prisma.account.count();
    for (const [changes, detail] of refusals) await refusedWith('INVALID_INPUT', register(changes), detail);
    assert.equal(await database.prisma.account.count(), before, 'none was made');
  });

  test('kept as the rules read it: the address trimmed and in lower case, the name trimmed, the password hashed', async () => {
    const email = address();
    const account = await register({ email: `  ${email.toUpperCase()} `, displayName: ' Ada Lovelace ' });
    assert.deepEqual([account.email, account.displayName, account.kind], [email, 'Ada Lovelace', 'full']);
    assert.equal(await verifyPassword(valid.password, account.passwordHash), true);
    await refusedWith(
      'EMAIL_TAKEN',
      register({ email }),
      'An account with this e-mail address exists. Sign in instead.',
    );
  });

  test('a hash made elsewhere has no password to check; the other rules still hold', async () => {
    const fixture = { email: address(), passwordHash: 'unused', displayName: 'Fixture' };
    const account = await registerAccount(database.prisma, fixture);
    assert.equal(account.passwordHash, 'unused');
    await refusedWith(
      'INVALID_INPUT',
      registerAccount(database.prisma, { ...fixture, email: 'fixture' }),
      'email must be an e-mail address.',
    );
  });

  test('checkedAccount is the same check, without a database', () => {
    assert.throws(
      () => checkedAccount({ email: address(), password: 'too short', displayName: 'Ada' }),
      (error) => error instanceof Refusal && error.detail === 'password must be at least 12 characters.',
    );
    const email = address();
    assert.deepEqual(checkedAccount({ email: ` ${email} `, displayName: ' Ada ' }), { email, displayName: 'Ada' });
  });
});
