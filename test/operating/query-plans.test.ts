// Every hot read stays an index lookup as the platform grows: a platform seeded at a small scale
// (about 110,000 rows, by the generator `npm run seed:scale` uses), analyzed, then every statement
// the token and api paths and the console's and admin API's lists and searches send is EXPLAINed
// with its own values. At this size a full scan of a small table can be the planner's best choice,
// so plans are made with sequential scans priced out (enable_seqscan off): a full scan that remains
// is a read no index can serve, and fails, naming the read and the statement. So does a walk down
// an index that filters its rows without bounding them (at full size: as many rows as it takes to
// fill a page, all of them when none matches), unless it is one of the known walks below.
// `npm run bench:lists` times the same reads on the full-size platform.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Database, openDatabase } from '@devplat/db';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { hotReads } from '@devplat/test/scale/hot-reads';
import { tableSizes } from '@devplat/test/scale/measure';
import { explain, filteredWalks, fullScans, hotStatements, type ReadStatements } from '@devplat/test/scale/plans';
import { seedScale } from '@devplat/test/scale/seed';
import { scaleSizes } from '@devplat/test/scale/sizes';
import { pickSubjects } from '@devplat/test/scale/subjects';

// The proportions of the full-size platform (docs/benchmarks.md, seed:scale), a twenty-fifth of it:
// big enough that the planner prices a full scan above an index path, as it does at full size.
const sizes = scaleSizes({
  accounts: 1_000,
  apps: 4_000,
  players: 40_000,
  consents: 40_000,
  audit: 20_000,
  events: 4_000,
  revokedTokens: 1_000,
  families: 0,
  sessions: 0,
});

/** Reads that may walk an index with a filter, and why that is accepted (or what is to be done). */
const knownWalks: Record<string, string> = {
  'apps by name prefix': 'a name prefix in any case is checked on the rows the newest-first walk meets (apps/store.ts)',
  'players by a common username prefix, two pages':
    'a common prefix is met often on the newest-first walk, which stops at a page of them; a rare one is a range on the lower(username) text_pattern_ops index (players by a rare username prefix)',
  'accounts by part of the e-mail': 'a part of an address (%part%) needs a trigram index, which PGlite does not have',
  'accounts by status': 'a status other than active is rare: the walk stops at a page of them',
  'players by status': 'a status other than active is rare: the walk stops at a page of them',
  'audit log by target type': 'every target type is common: the walk stops at a page of them',
  'audit log by action prefix':
    'a prefix of a real action (app., secret.) is common: the walk stops at a page of them; LIKE uses no index unless it is text_pattern_ops',
};

let database: TestDatabase;
let read: ReadStatements[];
/** One connection, with sequential scans priced out. */
let explaining: Database;
before(async () => {
  database = await createTestDatabase({ seed: false });
  // The seed's statements share one session's settings: one connection of their own on PostgreSQL.
  const seeding: Database = database.url
    ? await openDatabase({ databaseUrl: database.url, poolSize: 1, timeoutMs: 120_000 })
    : database;
  try {
    await seedScale({
      database: seeding,
      store: null,
      sizes,
      password: 'plans',
      pairwiseSecret: 'p'.repeat(32),
      resource: 'http://127.0.0.1:8080/developer/v1',
    });
  } finally {
    if (seeding !== database) await seeding.close();
  }
  read = await hotStatements(database, hotReads, await pickSubjects(database.query));
  explaining = database.url
    ? await openDatabase({ databaseUrl: database.url, poolSize: 1, timeoutMs: 120_000 })
    : database;
  await explaining.query('SET enable_seqscan = off', []);
});
after(async () => {
  if (explaining && explaining !== database) await explaining.close();
  await database?.drop();
});

describe('the seed', () => {
  test('writes the rows asked for', async () => {
    const rows = Object.fromEntries((await tableSizes(database.query)).map((table) => [table.table, table.rows]));
    assert.deepEqual(
      {
        accounts: rows.accounts,
        apps: rows.apps,
        sandbox_players: rows.sandbox_players,
        consents: rows.consents,
        audit_records: rows.audit_records,
        outbox_events: rows.outbox_events,
        revoked_tokens: rows.revoked_tokens,
      },
      {
        accounts: sizes.accounts,
        apps: sizes.apps,
        sandbox_players: sizes.players,
        consents: sizes.consents,
        audit_records: sizes.audit,
        outbox_events: sizes.events,
        revoked_tokens: sizes.revokedTokens,
      },
    );
    assert.ok((rows.client_secrets ?? 0) > sizes.apps, 'some apps have rotated their secret');
  });
});

describe('hot reads at scale', () => {
  test('each read sends its statements, and an index serves each: no full scan of a big table', async () => {
    const scans: string[] = [];
    for (const { read: hot, statements } of read) {
      assert.ok(statements.length > 0, `${hot.name} sent no statement`);
      for (const statement of statements) {
        const tables = fullScans((await explain(explaining.query, statement)).plan);
        if (tables.length) scans.push(`${hot.path}: ${hot.name} reads ${tables.join(', ')} whole:\n${statement.sql}`);
      }
    }
    assert.deepEqual(scans, []);
  });

  test('no read walks an index with an unbounded filter but the known walks', async () => {
    const walking = new Map<string, string>();
    for (const { read: hot, statements } of read) {
      for (const statement of statements) {
        const walks = filteredWalks((await explain(explaining.query, statement)).plan);
        if (walks.length)
          walking.set(hot.name, `${hot.path}: ${hot.name} walks ${walks.join(', ')}:\n${statement.sql}`);
      }
    }
    // A known walk may not be one on every planner (PGlite's is PostgreSQL 17's): it is allowed, not required.
    assert.deepEqual(
      [...walking].filter(([name]) => !(name in knownWalks)).map(([, why]) => why),
      [],
    );
  });
});
