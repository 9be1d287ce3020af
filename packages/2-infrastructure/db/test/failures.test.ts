// PostgreSQL failures reach callers as one type, DependencyUnavailableError, whichever way the call
// went (Prisma models, raw SQL, interactive transactions, the direct statements); answers about the
// statement itself (a unique violation, bad SQL) stay what they are. A PostgreSQL that takes the
// bytes and never answers fails each call within the bound (DATABASE_TIMEOUT_MS) the same way.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DependencyUnavailableError } from '@devplat/errors';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { startFaultProxy } from '@devplat/test/fault-proxy';
import pg from 'pg';
import { type Database, openDatabase, Prisma } from '../src/index.ts';

// A listener that takes connections and drops them at once: a PostgreSQL that dies mid-handshake.
async function droppingServer(): Promise<{ port: number; server: Server }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as { port: number }).port, server };
}

// A listener that takes connections and never says a word: a hung PostgreSQL.
async function silentServer(): Promise<{ port: number; server: Server }> {
  const server = createServer(() => {});
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

/** Every kind of call fails as a dependency failure, each within `bound` ms and a margin. */
async function everyKindOfCallWithin(database: Database, bound: number) {
  const calls = [
    () => database.prisma.app.findFirst(),
    () => database.prisma.$queryRaw`SELECT 1`,
    () => database.prisma.$transaction(async (tx) => tx.app.count()),
    () => database.query('SELECT 1', []),
  ];
  for (const call of calls) {
    const started = performance.now();
    await assertUnavailable(call);
    const took = performance.now() - started;
    assert.ok(took < bound + 250, `${call.toString()} took ${Math.round(took)} ms, bound ${bound} ms`);
  }
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

describe('PostgreSQL that does not answer', () => {
  const bound = 300;

  test('a server that accepts and never answers fails every kind of call within the bound', async () => {
    const { port, server } = await silentServer();
    const database = await openDatabase({
      databaseUrl: `postgresql://postgres@127.0.0.1:${port}/test`,
      timeoutMs: bound,
    });
    try {
      await everyKindOfCallWithin(database, bound);
    } finally {
      await database.close();
      server.close();
    }
  });

  test('connections that stop answering fail every kind of call within the bound, and are replaced', {
    skip: realPostgresUrl ? false : 'needs a real PostgreSQL (DATABASE_URL) behind a proxy',
  }, async () => {
    const proxy = await startFaultProxy({ port: Number(new URL(realPostgresUrl as string).port || 5432) });
    const database = await openDatabase({ databaseUrl: proxy.proxied(realPostgresUrl as string), timeoutMs: bound });
    try {
      await database.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`); // connections open
      await database.query('SELECT 1', []);
      await proxy.stall();
      await everyKindOfCallWithin(database, bound);
      await everyKindOfCallWithin(database, bound); // and again, on the connections opened meanwhile
      await proxy.restore();
      await database.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 1`);
      await database.prisma.$queryRaw`SELECT 1`;
      await database.query('SELECT 1', []);
    } finally {
      await database.close();
      await proxy.close();
    }
  });
});

describe('a transaction past its bounds', { skip: !realPostgresUrl }, () => {
  test('one that cannot start in time is a dependency failure (Prisma P2028), not a 500', async () => {
    const bound = 200;
    const database = await openDatabase({ databaseUrl: realPostgresUrl, timeoutMs: bound, poolSize: 1 });
    try {
      let holding: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        holding = resolve;
      });
      // The pool's only connection is taken by a transaction that ends when told.
      const holder = database.prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT 1`;
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      await assert.rejects(
        () => database.prisma.$transaction(async (tx) => tx.$queryRaw`SELECT 2`),
        (error: unknown) => {
          assert.ok(error instanceof DependencyUnavailableError, `not a dependency failure: ${String(error)}`);
          return true;
        },
      );
      holding();
      await holder;
    } finally {
      await database.close();
    }
  });

  test('one that outlives its timeout is a dependency failure (Prisma P2028), not a 500', async () => {
    const bound = 100;
    const database = await openDatabase({ databaseUrl: realPostgresUrl, timeoutMs: bound });
    try {
      await assert.rejects(
        () =>
          database.prisma.$transaction(async (tx) => {
            await new Promise((resolve) => setTimeout(resolve, 3 * bound));
            return tx.$queryRaw`SELECT 1`;
          }),
        (error: unknown) => {
          assert.ok(error instanceof DependencyUnavailableError, `not a dependency failure: ${String(error)}`);
          assert.ok(error.cause instanceof Prisma.PrismaClientKnownRequestError);
          assert.equal(error.cause.code, 'P2028');
          return true;
        },
      );
    } finally {
      await database.close();
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
