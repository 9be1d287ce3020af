// The one table from refusals to Problem codes, for the console's doors and the admin API.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { problemCodes } from '@devplat/contract';
import { Refusal } from '../src/refusal.ts';
import { refusalCodes, refusalProblemCode, retryAfterHeaders } from '../src/refusal-problems.ts';

test('every refusal answers a catalogued Problem at both doors, which differ in a refused sign-in alone', () => {
  const differing = refusalCodes.filter(
    (code) => refusalProblemCode(code, 'console') !== refusalProblemCode(code, 'admin'),
  );
  assert.deepEqual(differing, ['INVALID_CREDENTIALS']);
  assert.equal(refusalProblemCode('INVALID_CREDENTIALS', 'console'), 'INVALID_CREDENTIALS');
  assert.equal(refusalProblemCode('INVALID_CREDENTIALS', 'admin'), 'INVALID_REQUEST');
  for (const code of refusalCodes) {
    for (const door of ['console', 'admin'] as const) {
      assert.ok(refusalProblemCode(code, door) in problemCodes, `${code} at the ${door}`);
    }
  }
  assert.equal(refusalProblemCode('APP_SUSPENDED', 'console'), 'APP_DISABLED');
  assert.equal(refusalProblemCode('DELIVERY_REPLAYED', 'admin'), 'DELIVERY_NOT_FAILED');
});

test('a refusal that says when to try again gets Retry-After; others none', () => {
  assert.deepEqual(retryAfterHeaders(new Refusal('TOO_MANY_ATTEMPTS', 'Locked.', { retryAfterSeconds: 30 })), {
    'Retry-After': '30',
  });
  assert.deepEqual(retryAfterHeaders(new Refusal('APP_NOT_FOUND', 'No such app.')), {});
});
