import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AuditRecord } from '@devplat/db';
import { Refusal } from '@devplat/domain/refusal';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { type AuditQuery, auditJsonLine, exportAudit, queryAudit } from '../src/audit/index.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

interface Row {
  actorType?: string;
  actorId?: string | null;
  action?: string;
  targetType?: string;
  targetId?: string;
  details?: object;
  requestId?: string | null;
  createdAt: Date;
}

/** Records as the rooms' operations write them, at the times a test needs. */
async function insert(rows: Row[]): Promise<void> {
  await database.prisma.auditRecord.createMany({
    data: rows.map((row) => ({
      actorType: 'operator',
      actorId: 'ops',
      action: 'account.suspend',
      targetType: 'account',
      targetId: randomUUID(),
      details: {},
      ...row,
    })),
  });
}

/** A name no other test's records carry. */
const someone = () => `ops-${randomUUID().slice(0, 8)}`;
const at = (iso: string) => new Date(iso);

/** Every page of a query, following the cursors. */
async function allPages(query: AuditQuery): Promise<AuditRecord[][]> {
  const pages: AuditRecord[][] = [];
  let cursor = query.cursor;
  do {
    const { items, nextCursor } = await queryAudit(database.prisma, { ...query, cursor });
    pages.push(items);
    cursor = nextCursor ?? undefined;
  } while (cursor);
  return pages;
}

function refused(detail: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, 'INVALID_INPUT');
    assert.match(error.detail, detail);
    return true;
  };
}

describe('filters', () => {
  const operator = someone();
  const accountId = randomUUID();
  const playerId = randomUUID();
  const appId = randomUUID();

  before(async () => {
    await insert([
      {
        actorId: operator,
        action: 'player.disable',
        targetType: 'sandbox_player',
        targetId: playerId,
        createdAt: at('2024-03-01T10:00:00Z'),
      },
      {
        actorId: operator,
        action: 'player.enable',
        targetType: 'sandbox_player',
        targetId: playerId,
        createdAt: at('2024-03-02T10:00:00Z'),
      },
      {
        actorType: 'account',
        actorId: accountId,
        action: 'app.create',
        targetType: 'app',
        targetId: appId,
        requestId: 'req-1',
        createdAt: at('2024-03-03T10:00:00Z'),
      },
      {
        actorType: 'account',
        actorId: accountId,
        action: 'app.edit',
        targetType: 'app',
        targetId: appId,
        createdAt: at('2024-03-04T10:00:00Z'),
      },
      {
        actorType: 'account',
        actorId: accountId,
        action: 'apps.like',
        targetType: 'app',
        targetId: appId,
        createdAt: at('2024-03-05T10:00:00Z'),
      },
      {
        actorType: 'account',
        actorId: accountId,
        action: 'secret.create',
        targetType: 'client_secret',
        targetId: randomUUID(),
        createdAt: at('2024-03-06T10:00:00Z'),
      },
      // An operator who chose a name like an account's id is still an operator.
      {
        actorId: accountId,
        action: 'account.suspend',
        targetType: 'account',
        targetId: accountId,
        createdAt: at('2024-03-07T10:00:00Z'),
      },
    ]);
  });

  const actions = async (query: AuditQuery) => (await queryAudit(database.prisma, query)).items.map((r) => r.action);

  test('by actor: an operator by name, an account by id, or any of several; newest first', async () => {
    assert.deepEqual(await actions({ actors: [{ type: 'operator', id: operator }] }), [
      'player.enable',
      'player.disable',
    ]);
    assert.deepEqual(await actions({ actors: [{ type: 'account', id: accountId }] }), [
      'secret.create',
      'apps.like',
      'app.edit',
      'app.create',
    ]);
    assert.deepEqual(
      await actions({
        actors: [
          { type: 'operator', id: operator },
          { type: 'operator', id: accountId },
        ],
      }),
      ['account.suspend', 'player.enable', 'player.disable'],
    );
    assert.deepEqual(await actions({ actors: [{ type: 'operator', id: 'nobody-at-all' }] }), []);
  });

  test('by action: exactly, or every action a prefix ending with a dot begins', async () => {
    const mine = { actors: [{ type: 'account' as const, id: accountId }] };
    assert.deepEqual(await actions({ ...mine, action: 'app.create' }), ['app.create']);
    assert.deepEqual(await actions({ ...mine, action: 'app.' }), ['app.edit', 'app.create']);
    // Without the dot it is one action's name, not a prefix.
    assert.deepEqual(await actions({ ...mine, action: 'app' }), []);
  });

  test('an action prefix is literal text: _ and % match only themselves', async () => {
    const who = someone();
    await insert([
      { actorId: who, action: 'a_b.one', createdAt: at('2024-04-01T00:00:00Z') },
      { actorId: who, action: 'axb.two', createdAt: at('2024-04-02T00:00:00Z') },
      { actorId: who, action: 'a%b.three', createdAt: at('2024-04-03T00:00:00Z') },
    ]);
    const by = { actors: [{ type: 'operator' as const, id: who }] };
    assert.deepEqual(await actions({ ...by, action: 'a_b.' }), ['a_b.one']);
    assert.deepEqual(await actions({ ...by, action: 'a%b.' }), ['a%b.three']);
  });

  test('by target: a type (player means sandbox_player), with or without an id', async () => {
    assert.deepEqual(await actions({ target: { type: 'player', id: playerId } }), ['player.enable', 'player.disable']);
    assert.deepEqual(await actions({ target: { type: 'sandbox_player', id: playerId } }), [
      'player.enable',
      'player.disable',
    ]);
    assert.deepEqual(await actions({ target: { type: 'app', id: appId } }), ['apps.like', 'app.edit', 'app.create']);
    assert.deepEqual(await actions({ target: { type: 'account', id: accountId } }), ['account.suspend']);
    const secrets = await actions({ actors: [{ type: 'account', id: accountId }], target: { type: 'client_secret' } });
    assert.deepEqual(secrets, ['secret.create']);
  });

  test('an unknown target type is refused, naming the known ones', async () => {
    await assert.rejects(
      queryAudit(database.prisma, { target: { type: 'apps', id: appId } }),
      refused(
        /unknown target type "apps": one of app, account, player, consent, client_secret, webhook_delivery, outbox_event/,
      ),
    );
  });

  test('by time: since inclusive, until exclusive; a date means midnight UTC; offsets are honoured', async () => {
    const mine = { actors: [{ type: 'account' as const, id: accountId }] };
    assert.deepEqual(await actions({ ...mine, since: '2024-03-04T10:00:00Z', until: '2024-03-06T10:00:00Z' }), [
      'apps.like',
      'app.edit',
    ]);
    assert.deepEqual(await actions({ ...mine, since: '2024-03-05', until: '2024-03-06' }), ['apps.like']);
    assert.deepEqual(await actions({ ...mine, until: '2024-03-04T11:00:00+01:00' }), ['app.create']);
    assert.deepEqual(await actions({ ...mine, since: at('2024-03-06T10:00:00Z') }), ['secret.create']);
  });

  test('a time that is not ISO 8601 with a zone, or a range that ends before it starts, is refused', async () => {
    for (const since of ['yesterday', '2024-03-04T10:00:00', '2024-02-30', '2024-13-01', '1709546400']) {
      await assert.rejects(queryAudit(database.prisma, { since }), refused(/^since must be an ISO 8601 time/), since);
    }
    await assert.rejects(
      queryAudit(database.prisma, { since: '2024-03-05', until: '2024-03-05' }),
      refused(/until must be after since/),
    );
  });

  test('a record carries everything it was written with', async () => {
    const [record] = (await queryAudit(database.prisma, { action: 'app.create', target: { type: 'app', id: appId } }))
      .items;
    assert.ok(record);
    assert.equal(record.actorType, 'account');
    assert.equal(record.actorId, accountId);
    assert.equal(record.requestId, 'req-1');
    assert.deepEqual(record.createdAt, at('2024-03-03T10:00:00Z'));
  });
});

describe('paging', () => {
  const operator = someone();
  const start = Date.parse('2023-06-01T00:00:00Z');
  const total = 137;

  before(async () => {
    // Five records a millisecond: only the id tells them apart.
    await insert(
      Array.from({ length: total }, (_, n) => ({
        actorId: operator,
        details: { n },
        createdAt: new Date(start + Math.floor(n / 5)),
      })),
    );
  });
  const query = { actors: [{ type: 'operator' as const, id: operator }] };

  test('every record once, newest first, across pages, the last page without a cursor', async () => {
    const pages = await allPages({ ...query, limit: 20 });
    assert.deepEqual(
      pages.map((page) => page.length),
      [20, 20, 20, 20, 20, 20, 17],
    );
    const seen = pages.flat();
    assert.equal(new Set(seen.map((record) => record.id)).size, total);
    for (const [index, record] of seen.entries()) {
      const next = seen[index + 1];
      if (!next) break;
      const newer = record.createdAt > next.createdAt || (+record.createdAt === +next.createdAt && record.id > next.id);
      assert.ok(newer, `record ${index} is not newer than the next`);
    }
  });

  test('the default page is 50 records; a limit of 1 to 200 is honoured, any other refused', async () => {
    assert.equal((await queryAudit(database.prisma, query)).items.length, 50);
    assert.equal((await queryAudit(database.prisma, { ...query, limit: 200 })).items.length, total);
    assert.equal((await queryAudit(database.prisma, { ...query, limit: 200 })).nextCursor, null);
    for (const limit of [0, 201, 1.5, -1]) {
      await assert.rejects(
        queryAudit(database.prisma, { ...query, limit }),
        refused(/limit must be an integer from 1 to 200/),
      );
    }
  });

  test('records written while an operator pages neither shift nor repeat the pages after', async () => {
    const first = await queryAudit(database.prisma, { ...query, limit: 30 });
    await insert([{ actorId: operator, details: { late: true }, createdAt: new Date() }]);
    const rest = (await allPages({ ...query, limit: 30, cursor: first.nextCursor as string })).flat();
    const ids = [...first.items, ...rest].map((record) => record.id);
    assert.equal(ids.length, total);
    assert.equal(new Set(ids).size, total);
  });

  test('a cursor this listing did not give is refused', async () => {
    const { nextCursor } = await queryAudit(database.prisma, { ...query, limit: 5 });
    assert.ok(nextCursor);
    const position = JSON.parse(Buffer.from(nextCursor, 'base64url').toString());
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      'not a cursor',
      nextCursor.slice(0, -4),
      forged(['audit', 'yesterday', position[2]]),
      forged(['audit', position[1], 'not-a-uuid']),
      forged({ at: position[1] }),
      forged(['accounts', position[1], position[2]]),
    ];
    for (const cursor of bad) {
      await assert.rejects(
        queryAudit(database.prisma, { ...query, cursor }),
        refused(/the cursor is not one this listing gave/),
        cursor,
      );
    }
  });
});

describe('several actors', () => {
  const operator = someone();
  const accountId = randomUUID();
  const start = Date.parse('2023-07-01T00:00:00Z');
  const actors = [
    { type: 'operator' as const, id: operator },
    { type: 'account' as const, id: accountId },
  ];

  before(async () => {
    // Both actors' records interleaved, three a millisecond, some milliseconds shared by both.
    await insert(
      Array.from({ length: 61 }, (_, n) => ({
        ...(n % 3 === 1 ? { actorType: 'account', actorId: accountId } : { actorId: operator }),
        details: { n },
        createdAt: new Date(start + Math.floor(n / 3)),
      })),
    );
  });

  /** The records of either actor, as one statement orders them. */
  const expected = (order: 'asc' | 'desc') =>
    database.prisma.auditRecord.findMany({
      where: { OR: actors.map(({ type, id }) => ({ actorType: type, actorId: id })) },
      orderBy: [{ createdAt: order }, { id: order }],
    });

  test('each page is the merge of their records, newest first, the cursors going on where it ended', async () => {
    const all = (await expected('desc')).map((record) => record.id);
    assert.equal(all.length, 61);
    for (const limit of [1, 7, 20, 61, 200]) {
      const pages = await allPages({ actors, limit });
      assert.deepEqual(
        pages.flat().map((record) => record.id),
        all,
        `limit ${limit}`,
      );
      assert.ok(pages.slice(0, -1).every((page) => page.length === limit));
    }
    // An actor named twice is still one actor's records, once.
    const twice = await allPages({ actors: [...actors, actors[0] as (typeof actors)[0]], limit: 9 });
    assert.deepEqual(
      twice.flat().map((record) => record.id),
      all,
    );
  });

  test('an export of several actors is their records oldest first, in batches', async () => {
    const all = (await expected('asc')).map((record) => record.id);
    const batches: string[][] = [];
    for await (const batch of exportAudit(
      database.prisma,
      { actors, since: '2023-07-01T00:00:00Z', until: '2023-07-02T00:00:00Z' },
      { batchSize: 8 },
    )) {
      batches.push(batch.map((record) => record.id));
    }
    assert.deepEqual(batches.flat(), all);
    assert.ok(batches.slice(0, -1).every((batch) => batch.length === 8));
  });
});

describe('export as JSON Lines', () => {
  const operator = someone();
  const since = '2022-01-01T00:00:00Z';
  const until = '2022-01-02T00:00:00Z';
  const inRange = 2345;

  before(async () => {
    const start = Date.parse(since);
    await insert([
      ...Array.from({ length: inRange }, (_, n) => ({
        actorId: operator,
        action: 'player.disable',
        targetType: 'sandbox_player',
        details: { n, reason: 'line "one"\nline two' },
        // Two records a second, the first exactly at since.
        createdAt: new Date(start + Math.floor(n / 2) * 1000),
      })),
      // Just outside: at until, and a millisecond before since.
      { actorId: operator, createdAt: at(until) },
      { actorId: operator, createdAt: new Date(start - 1) },
    ]);
  });

  async function exported(filter: Parameters<typeof exportAudit>[1], batchSize?: number) {
    const batches: number[] = [];
    let text = '';
    for await (const batch of exportAudit(database.prisma, filter, batchSize ? { batchSize } : {})) {
      batches.push(batch.length);
      text += batch.map(auditJsonLine).join('');
    }
    return { batches, text };
  }

  test('every record of the range once, oldest first, read in batches, one snake_case object a line', async () => {
    const { batches, text } = await exported({ since, until, actors: [{ type: 'operator', id: operator }] });
    assert.deepEqual(batches, [1000, 1000, 345]);
    assert.ok(text.endsWith('\n'));
    const lines = text.split('\n').slice(0, -1);
    assert.equal(lines.length, inRange);
    const objects = lines.map((line) => JSON.parse(line));
    assert.deepEqual(Object.keys(objects[0]), [
      'id',
      'created_at',
      'actor_type',
      'actor_id',
      'action',
      'target_type',
      'target_id',
      'details',
      'request_id',
    ]);
    // Oldest first; records of the same millisecond by id, as the listing pages them.
    for (const [index, object] of objects.entries()) {
      const next = objects[index + 1];
      if (!next) break;
      assert.ok(object.created_at < next.created_at || (object.created_at === next.created_at && object.id < next.id));
    }
    assert.deepEqual(
      objects.map((object) => object.details.n).toSorted((a: number, b: number) => a - b),
      Array.from({ length: inRange }, (_, n) => n),
    );
    assert.equal(new Set(objects.map((object) => object.id)).size, inRange);
    assert.equal(objects[0].created_at, '2022-01-01T00:00:00.000Z');
    assert.equal(objects[0].actor_type, 'operator');
    assert.equal(objects[0].actor_id, operator);
    assert.equal(objects[0].target_type, 'sandbox_player');
    assert.equal(objects[0].request_id, null);
    assert.equal(objects[0].details.reason, 'line "one"\nline two');
  });

  test('a batch that ends exactly where the range ends, and the other filters, hold', async () => {
    const mine = { since, until, actors: [{ type: 'operator' as const, id: operator }] };
    const { batches } = await exported({ ...mine, since: '2022-01-01T00:00:00Z', until: '2022-01-01T00:05:00Z' }, 300);
    assert.deepEqual(batches, [300, 300]);
    assert.equal((await exported({ ...mine, action: 'player.' })).text.split('\n').length - 1, inRange);
    assert.equal((await exported({ ...mine, action: 'app.' })).text, '');
  });

  test('an export needs both ends of its range', async () => {
    const missing = { since } as Parameters<typeof exportAudit>[1];
    await assert.rejects(exported(missing), refused(/an export needs both since and until/));
    await assert.rejects(exported({ since: until, until: since }), refused(/until must be after since/));
  });
});
