// A PostgreSQL failover, against real servers: the primary's machine dies while its standby lags,
// the standby is promoted and the one address clients use moves to it. With synchronous
// replication no acknowledged commit is lost (the commits during the lag wait, and their clients
// get an error); with asynchronous replication the commits acknowledged during the lag are lost.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  needsPostgresBinaries,
  type ReplicatedPostgres,
  type Replication,
  startReplicatedPostgres,
} from '@devplat/test/postgres-replication';
import { pollUntil } from '@devplat/test/redis-topologies';
import pg from 'pg';

/** A client through the proxy, connected. */
async function connected(postgres: ReplicatedPostgres): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: postgres.url(), connectionTimeoutMillis: 5_000 });
  client.on('error', () => {}); // a killed server ends the connection; the query in flight rejects
  await client.connect();
  return client;
}

/** One statement on a connection of its own through the proxy. */
async function through<Row extends pg.QueryResultRow>(
  postgres: ReplicatedPostgres,
  text: string,
  values: unknown[] = [],
): Promise<Row[]> {
  const client = await connected(postgres);
  try {
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Inserts these ids one by one, each its own commit; resolves with those acknowledged. */
async function insertEach(postgres: ReplicatedPostgres, ids: number[]): Promise<number[]> {
  const acknowledged: number[] = [];
  for (const id of ids) {
    await through(postgres, 'INSERT INTO acknowledged (id) VALUES ($1)', [id]);
    acknowledged.push(id);
  }
  return acknowledged;
}

async function presentIds(postgres: ReplicatedPostgres): Promise<Set<number>> {
  const rows = await through<{ id: number }>(postgres, 'SELECT id FROM acknowledged');
  return new Set(rows.map((row) => row.id));
}

/** A replicated PostgreSQL with the table the tests write to, made through the proxy. */
async function withTable(replication: Replication): Promise<ReplicatedPostgres> {
  const postgres = await startReplicatedPostgres({ replication });
  await through(postgres, 'CREATE TABLE acknowledged (id int PRIMARY KEY)');
  return postgres;
}

const range = (from: number, count: number) => Array.from({ length: count }, (_, index) => from + index);

describe('a PostgreSQL failover behind one address', { skip: needsPostgresBinaries }, () => {
  describe('with synchronous replication', () => {
    let postgres: ReplicatedPostgres;
    before(async () => {
      postgres = await withTable('sync');
    });
    after(() => postgres?.stop());

    /**
     * A failover while the standby lags, with `waiting` commits sent during the lag on connections
     * opened before it; resolves with what happened to them and the failover's line.
     */
    async function failoverWithWaitingCommits(firstId: number, waiting: number) {
      const clients = await Promise.all(range(0, waiting).map(() => connected(postgres)));
      let outcomes: Promise<PromiseSettledResult<unknown>[]> = Promise.resolve([]);
      const line = await postgres.failover({
        lagMs: 500,
        lagging: async () => {
          outcomes = Promise.allSettled(
            clients.map((client, index) =>
              client.query('INSERT INTO acknowledged (id) VALUES ($1)', [firstId + index]),
            ),
          );
          // They reached the primary and wait there for the standby to flush their commit.
          await pollUntil(
            `${waiting} commits waiting for the synchronous standby`,
            async () => {
              const [row] = await through<{ count: number }>(
                postgres,
                "SELECT count(*)::int AS count FROM pg_stat_activity WHERE wait_event = 'SyncRep'",
              );
              return row?.count === waiting;
            },
            10_000,
          );
        },
      });
      for (const client of clients) await client.end().catch(() => {});
      return { line, outcomes: await outcomes };
    }

    test('no acknowledged commit is lost, twice over', { timeout: 120_000 }, async (t) => {
      t.diagnostic(postgres.describe);
      const acknowledged = await insertEach(postgres, range(1, 20));

      const first = await failoverWithWaitingCommits(1_000, 4);
      t.diagnostic(`first failover: ${first.line}`);
      // Not one of them was acknowledged: the primary died with them waiting, and their clients were told.
      assert.deepEqual(
        first.outcomes.map((outcome) => outcome.status),
        ['rejected', 'rejected', 'rejected', 'rejected'],
      );
      const afterFirst = await presentIds(postgres);
      assert.deepEqual(
        acknowledged.filter((id) => !afterFirst.has(id)),
        [],
        'acknowledged rows missing on the promoted primary',
      );
      // The same address now writes to the new primary, synchronously replicated to its new standby.
      acknowledged.push(...(await insertEach(postgres, range(21, 10))));

      // The rebuilt standby takes over in turn.
      const second = await failoverWithWaitingCommits(2_000, 2);
      t.diagnostic(`second failover: ${second.line}`);
      assert.deepEqual(
        second.outcomes.map((outcome) => outcome.status),
        ['rejected', 'rejected'],
      );
      const afterSecond = await presentIds(postgres);
      assert.deepEqual(
        acknowledged.filter((id) => !afterSecond.has(id)),
        [],
        'acknowledged rows missing after the second failover',
      );
      assert.deepEqual(await insertEach(postgres, [31]), [31]);
    });
  });

  describe('with asynchronous replication', () => {
    let postgres: ReplicatedPostgres;
    before(async () => {
      postgres = await withTable('async');
    });
    after(() => postgres?.stop());

    test('the commits acknowledged while the standby lagged are lost', { timeout: 120_000 }, async (t) => {
      t.diagnostic(postgres.describe);
      const before = await insertEach(postgres, range(1, 20));
      let duringLag: number[] = [];
      const line = await postgres.failover({
        lagMs: 500,
        lagging: async () => {
          // Acknowledged at once: the primary waits for no standby.
          duringLag = await insertEach(postgres, range(1_000, 10));
        },
      });
      t.diagnostic(`failover: ${line}`);
      assert.equal(duringLag.length, 10, 'every commit during the lag acknowledged');

      const present = await presentIds(postgres);
      assert.deepEqual(
        before.filter((id) => !present.has(id)),
        [],
        'rows the standby had before the lag missing',
      );
      const lost = duringLag.filter((id) => !present.has(id));
      t.diagnostic(`${lost.length} of ${duringLag.length} commits acknowledged during the lag lost`);
      assert.ok(lost.length >= 1, 'no acknowledged commit lost: the standby did not lag');
      assert.deepEqual(await insertEach(postgres, [31]), [31]);
    });
  });
});
