// The rules of a developer's input refuse text the database cannot store (@devplat/db's
// storableText) as they refuse any bad value: INVALID_INPUT with the reason, never a statement that
// fails.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { email } from '../src/accounts/index.ts';
import { requiredText } from '../src/input.ts';
import { username } from '../src/players/index.ts';
import { Refusal } from '../src/refusal.ts';

const refusedWith = (detail: string) => (error: unknown) => {
  assert.ok(error instanceof Refusal, String(error));
  assert.deepEqual([error.code, error.detail], ['INVALID_INPUT', detail]);
  return true;
};

test('a NUL or a lone surrogate in text is refused, naming the field', () => {
  assert.throws(
    () => requiredText('My\u0000App', 'name', 100),
    refusedWith('name must not contain control or formatting characters.'),
  );
  assert.throws(() => requiredText('My\ud800App', 'name', 100), refusedWith('name must not contain a lone surrogate.'));
  assert.throws(() => email('ada\udc00@example.test'), refusedWith('email must not contain a lone surrogate.'));
  assert.throws(() => username('ada\ud800'), refusedWith('username must not contain a lone surrogate.'));
  assert.equal(requiredText(' My \uFFFD App ', 'name', 100), 'My \uFFFD App');
});
