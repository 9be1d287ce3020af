// What PostgreSQL can store (storable.ts) and the database boundary's backstop (guard.ts): the
// predicates' edges; the driver and Prisma's adapter, unguarded, failing or changing what the
// predicates refuse (so they refuse no more than needed); what they accept going through intact;
// and every kind of call failing with UnstorableValueError, before anything is sent, instead.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { UnstorableValueError } from '@devplat/errors';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient, storableInstant, storableText } from '../src/index.ts';

const instant = (iso: string) => new Date(iso);
/** A date in a year Date.parse will not read from four digits: 0 and before. */
const inYear = (year: number) => {
  const date = new Date('2000-06-15T00:00:00.000Z');
  date.setUTCFullYear(year);
  return date;
};

describe('the predicates', () => {
  test('text: anything but a NUL or a lone surrogate', () => {
    for (const text of ['', 'svc_abc', 'ünïcødé', '\u{1F600}', '\ud83d\ude00', '\uFFFD', 'a\u0001b', 'a%00b']) {
      assert.equal(storableText(text), true, JSON.stringify(text));
    }
    for (const text of ['\u0000', 'svc_x\u0000', '\ud800', 'a\udc00b', '\ude00\ud83d']) {
      assert.equal(storableText(text), false, JSON.stringify(text));
    }
  });

  test('instants: from 1 AD to 9999 AD; no invalid date', () => {
    for (const date of [
      instant('0001-01-01T00:00:00.000Z'),
      instant('2025-01-31T12:00:00Z'),
      instant('9999-12-31T23:59:59.999Z'),
    ]) {
      assert.equal(storableInstant(date), true, date.toISOString());
    }
    for (const date of [
      instant('0000-12-31T23:59:59.999Z'),
      inYear(0),
      inYear(-4713),
      new Date(-8.64e15),
      instant('+010000-01-01T00:00:00.000Z'),
      new Date(8.64e15),
      new Date(Number.NaN),
      new Date('+300000-01-01T00:00:00Z'),
    ]) {
      assert.equal(storableInstant(date), false, String(date));
    }
  });
});

describe('unguarded, PostgreSQL and the driver refuse or change what the predicates refuse', {
  skip: realPostgresUrl ? false : 'needs DATABASE_URL (a real PostgreSQL)',
}, () => {
  test('a NUL: 22021; a lone surrogate comes back as U+FFFD; through Prisma, year 0 is 22008 and year 10000 comes back invalid', async () => {
    const pool = new pg.Pool({ connectionString: realPostgresUrl as string, max: 1 });
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
    try {
      await assert.rejects(pool.query('SELECT $1::text AS text', ['svc_x\u0000']), { code: '22021' });
      const { rows } = await pool.query('SELECT $1::text AS text', ['svc_x\ud800']);
      assert.equal(rows[0].text, 'svc_x\uFFFD');
      await assert.rejects(prisma.$queryRaw`SELECT ${inYear(0)}::timestamptz AS at`, /22008/);
      const past = instant('+010000-01-01T00:00:00.000Z');
      const [row] = await prisma.$queryRaw<
        { at: Date; text: string }[]
      >`SELECT ${past}::timestamptz AS at, ${past}::timestamptz::text AS text`;
      assert.equal(row?.text, '10000-01-01 00:00:00+00', 'written as it is');
      assert.ok(Number.isNaN(row?.at.getTime()), 'read back as an invalid Date');
    } finally {
      await prisma.$disconnect();
    }
  });
});

describe('guarded', () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase({ seed: false });
  });
  after(() => database.drop());

  const refused = (kind: UnstorableValueError['kind']) => (error: unknown) => {
    assert.ok(error instanceof UnstorableValueError, `not an UnstorableValueError: ${String(error)}`);
    assert.equal(error.kind, kind);
    return true;
  };

  test('what the predicates accept goes through intact, by Prisma and by the direct statements', async () => {
    for (const [at, text] of [
      [instant('0001-01-01T00:00:00.000Z'), '0001-01-01 00:00:00'],
      [instant('9999-12-31T23:59:59.999Z'), '9999-12-31 23:59:59.999'],
    ] as const) {
      const [row] = await database.prisma.$queryRaw<{ at: Date }[]>`SELECT ${at}::timestamptz AS at`;
      assert.equal(row?.at.toISOString(), at.toISOString());
      // As text: PGlite's driver reads year 1 back as 2001, a reading the platform never does.
      const [direct] = await database.query<{ text: string }>(
        "SELECT ($1::timestamptz AT TIME ZONE 'UTC')::text AS text",
        [at],
      );
      assert.equal(direct?.text, text);
    }
    const text = 'svc_\uFFFD\ud83d\ude00%00';
    const [row] = await database.prisma.$queryRaw<{ text: string }[]>`SELECT ${text}::text AS text`;
    assert.equal(row?.text, text);
  });

  test('every kind of call fails with UnstorableValueError, and the connection serves on', async () => {
    const { prisma, query } = database;
    await assert.rejects(prisma.account.findUnique({ where: { email: 'a\u0000@b.test' } }), refused('text'));
    await assert.rejects(
      prisma.app.findMany({ where: { clientId: { in: ['svc_a', 'svc_\ud800'] } } }),
      refused('text'),
    );
    await assert.rejects(prisma.account.findMany({ where: { createdAt: { gte: inYear(0) } } }), refused('instant'));
    await assert.rejects(
      prisma.auditRecord.findMany({ where: { details: { equals: { a: 'b\u0000' } } } }),
      refused('text'),
    );
    await assert.rejects(prisma.$queryRaw`SELECT ${'x\u0000'}::text`, refused('text'));
    await assert.rejects(prisma.$queryRaw`SELECT ${inYear(-1)}::timestamptz`, refused('instant'));
    await assert.rejects(prisma.$executeRaw`SELECT ${'\udfff'}::text`, refused('text'));
    await assert.rejects(
      prisma.$transaction((tx) => tx.app.count({ where: { name: 'x\u0000' } })),
      refused('text'),
    );
    await assert.rejects(query('SELECT $1::text', ['x\u0000']), refused('text'));
    await assert.rejects(query('SELECT unnest($1::text[])', [['a', 'b\ud800']]), refused('text'));
    await assert.rejects(query('SELECT $1::timestamptz', [inYear(0)]), refused('instant'));
    assert.equal(await prisma.account.count(), 0);
    assert.deepEqual(await query('SELECT 1 AS one', []), [{ one: 1 }]);
  });
});
