// PostgreSQL failures reach callers as one type, DependencyUnavailableError, whichever way the call
// went (Prisma models, raw SQL, interactive transactions, the direct statements); answers about the
// statement itself (a unique violation, bad SQL) stay what they are.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import pg from 'pg';
import { type Database, openDatabase, Prisma } from '../src/index.ts';

// A listener that takes connections and drops them at once: a PostgreSQL that dies mid-handshake.
async function droppingServer(): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

async function closedPort(): Promise<number> {
  const { port, server } = await droppingServer();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function assertUnavailable(work: () => Promise<unknown>) {
  await assert.rejects(work, (error: unknown) => {
    assert.ok(error instanceof DependencyUnavailableError, `not a dependency failure: ${String(error)}`);
    assert.equal(error.dependency, 'PostgreSQL');
    return true;
  });
}

async function everyKindOfCall(database: Database) {
  await assertUnavailable(() => database.prisma.app.findFirst());
  await assertUnavailable(() => database.prisma.$queryRaw`SELECT 1`);
  await assertUnavailable(() => database.prisma.$transaction(async (tx) => tx.app.count()));
  await assertUnavailable(() => database.query('SELECT 1', []));
}

describe('PostgreSQL that cannot be reached', () => {
  test('a refused connection is a dependency failure on every kind of call', async () => {
    const database = await openDatabase({ databaseUrl: `postgresql://postgres@127.0.0.1:${await closedPort()}/test` });
    try {
      await everyKindOfCall(database);
    } finally {
      await database.close();
    }
  });

  test('a connection dropped by the server is a dependency failure on every kind of call', async () => {
    const { port, server } = await droppingServer();
    const database = await openDatabase({ databaseUrl: `postgresql://postgres@127.0.0.1:${port}/test` });
    try {
      await everyKindOfCall(database);
    } finally {
      await database.close();
      server.close();
    }
  });
});

describe('answers about the statement itself', { skip: !realPostgresUrl }, () => {
  let database: TestDatabase;
  before(async () => {
    database = await createTestDatabase({ seed: false });
  });
  after(() => database.drop());

  test('a unique violation stays Prisma P2002', async () => {
    const data = { email: 'twice@example.com', passwordHash: 'x', displayName: 'Dev', kind: 'full' as const };
    await database.prisma.account.create({ data });
    await assert.rejects(
      () => database.prisma.account.create({ data }),
      (error: unknown) => error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2002',
    );
  });

  test('bad SQL on a direct statement stays the driver error', async () => {
    await assert.rejects(() => database.query('SELECT * FROM no_such_table', []), pg.DatabaseError);
  });
});
