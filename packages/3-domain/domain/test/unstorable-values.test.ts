// Values the database cannot store (@devplat/db's storableText, storableInstant) where the domain
// takes them from outside: a time filter or a cursor's time is refused as a bad value, a search text
// too; a lookup by a text id finds nothing, and asks the database nothing (its guard would throw).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Refusal } from '@devplat/domain/refusal';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { findAccountByEmail } from '../src/accounts/index.ts';
import { findAppByClientId } from '../src/apps/index.ts';
import { activeConsentsWithApp } from '../src/consents/index.ts';
import { decodeCursor, encodeCursor, instant, searchText, timeRange } from '../src/paging.ts';
import { findPlayerByUsername, findPlayerOfAccountEmail } from '../src/players/index.ts';

const inYear = (year: number) => {
  const date = new Date('2000-06-15T00:00:00.000Z');
  date.setUTCFullYear(year);
  return date;
};

const invalidInput = (detail: string) => (error: unknown) => {
  assert.ok(error instanceof Refusal, String(error));
  assert.equal(error.code, 'INVALID_INPUT');
  assert.equal(error.detail, detail);
  return true;
};

describe('time filters', () => {
  test('year 0 and the years past 9999 are refused as a bad value, naming the years kept', () => {
    assert.throws(
      () => instant('since', '0000-01-01'),
      invalidInput('since must be a time from the year 1 to 9999 (got "0000-01-01")'),
    );
    assert.throws(
      () => instant('until', '0000-12-31T23:59:59+00:00'),
      invalidInput('until must be a time from the year 1 to 9999 (got "0000-12-31T23:59:59+00:00")'),
    );
    // A zone that takes it back past year 1.
    assert.throws(() => instant('since', '0001-01-01T00:30:00+01:00'), /must be a time from the year 1 to 9999/);
    assert.throws(
      () => instant('since', inYear(0)),
      invalidInput('since must be a time from the year 1 to 9999 (got "0000-06-15T00:00:00.000Z")'),
    );
    assert.throws(() => instant('until', inYear(10_000)), /until must be a time from the year 1 to 9999/);
    // Years of more than four digits are not the ISO 8601 the filters take.
    assert.throws(() => instant('since', '+300000-01-01T00:00:00Z'), /since must be an ISO 8601 time with its zone/);
    assert.throws(() => timeRange({ since: 'since', until: 'until' }, '0000-01-01', '2025-01-01'), /year 1 to 9999/);
  });

  test('the first and the last instants kept are taken', () => {
    assert.equal(instant('since', '0001-01-01').toISOString(), '0001-01-01T00:00:00.000Z');
    assert.equal(instant('until', '9999-12-31T23:59:59.999Z').toISOString(), '9999-12-31T23:59:59.999Z');
  });

  test('a cursor whose time is year 0 is not one the listing gave', () => {
    const id = '00000000-0000-4000-8000-000000000000';
    const forged = Buffer.from(JSON.stringify(['audit', '0000-01-01T00:00:00.000Z', id])).toString('base64url');
    assert.throws(
      () => decodeCursor('audit', forged),
      invalidInput('the cursor is not one this listing gave: start again without one'),
    );
    const given = encodeCursor('audit', { createdAt: new Date('0001-01-01T00:00:00.000Z'), id });
    assert.equal(decodeCursor('audit', given).createdAt.toISOString(), '0001-01-01T00:00:00.000Z');
  });
});

test('a search text with a NUL or a lone surrogate is refused as a bad value', () => {
  assert.throws(
    () => searchText('email', 'a\u0000b'),
    invalidInput('email must not hold a NUL character or a lone surrogate'),
  );
  assert.throws(
    () => searchText('username', 'ab\ud800'),
    invalidInput('username must not hold a NUL character or a lone surrogate'),
  );
  assert.equal(searchText('email', ' a\uFFFDb '), 'a\uFFFDb');
});

describe('lookups by a text id', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase({ seed: false });
  });
  after(() => database.drop());

  test('text no row can hold finds nothing, without a query', async () => {
    const { prisma } = database;
    for (const text of ['svc_x\u0000', 'svc_x\ud800', '\udc00']) {
      assert.equal(await findAppByClientId(prisma, text), null);
      assert.equal(await findAccountByEmail(prisma, text), null);
      assert.equal(await findPlayerByUsername(prisma, text), null);
      assert.equal(await findPlayerOfAccountEmail(prisma, text, 'ada'), null);
      assert.equal(await findPlayerOfAccountEmail(prisma, 'ada@example.test', text), null);
      assert.deepEqual(await activeConsentsWithApp(prisma, '00000000-0000-4000-8000-000000000000', text), []);
    }
  });
});
