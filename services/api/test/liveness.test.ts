// The liveness check shares statements between calls that arrive together: under concurrency
// every call must still get the answer for its own token, and see changes committed before it,
// and a PostgreSQL that stops answering must fail each call within the bound.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { openDatabase } from '@devplat/db';
import { DependencyUnavailableError } from '@devplat/errors';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { startFaultProxy } from '@devplat/test/fault-proxy';
import type { AccessToken } from '../src/bearer.ts';
import { livenessAndProfileCheck } from '../src/liveness.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database?.drop());

async function appToken(): Promise<AccessToken & { secretRowId: string }> {
  const { app } = await createTestApp(database.prisma);
  const [secret] = await database.prisma.clientSecret.findMany({ where: { appId: app.id } });
  return {
    jti: randomUUID(),
    sub: app.clientId,
    clientId: app.clientId,
    scopes: new Set(['city.public.read']),
    expiresAt: Date.now() + 300_000,
    secretId: secret?.id as string,
    secretRowId: secret?.id as string,
  };
}

const outcome = (check: Promise<unknown>) =>
  check.then(
    () => 'live',
    (error: { code?: string }) => error.code ?? 'error',
  );

test('200 concurrent checks of live, revoked and unknown tokens each get their own answer', async () => {
  const check = livenessAndProfileCheck(database.query);
  const live = await appToken();
  const revokedSecret = await appToken();
  await database.prisma.clientSecret.update({ where: { id: revokedSecret.secretRowId }, data: { status: 'revoked' } });
  const revokedJti = await appToken();
  await database.prisma.revokedToken.create({
    data: { jti: revokedJti.jti, expiresAt: new Date(Date.now() + 60_000) },
  });
  const unknown = { ...live, clientId: 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaa' };
  const malformed = { ...live, secretId: 'not-a-uuid' };
  const cases = [live, revokedSecret, revokedJti, unknown, malformed];
  const expected = ['live', 'INVALID_TOKEN', 'INVALID_TOKEN', 'INVALID_TOKEN', 'INVALID_TOKEN'];

  const order = Array.from({ length: 200 }, (_, i) => i % cases.length);
  const answers = await Promise.all(order.map((i) => outcome(check(cases[i] as AccessToken))));
  assert.deepEqual(
    answers,
    order.map((i) => expected[i]),
  );
});

test('a change committed before a call is seen by that call, even while other calls are in flight', async () => {
  const check = livenessAndProfileCheck(database.query);
  const token = await appToken();
  const busy = Array.from({ length: 50 }, () => outcome(check(token)));
  await database.prisma.clientSecret.update({ where: { id: token.secretRowId }, data: { status: 'revoked' } });
  assert.equal(await outcome(check(token)), 'INVALID_TOKEN');
  assert.ok((await Promise.all(busy)).every((answer) => answer === 'live' || answer === 'INVALID_TOKEN'));
});

test('PostgreSQL stops answering: every call fails within the bound, none waits behind another, and it heals', {
  skip: realPostgresUrl ? false : 'needs a real PostgreSQL (DATABASE_URL) behind a proxy',
}, async () => {
  const token = await appToken();
  const proxy = await startFaultProxy({ port: Number(new URL(database.url as string).port || 5432) });
  const bound = 400;
  const viaProxy = await openDatabase({ databaseUrl: proxy.proxied(database.url as string), timeoutMs: bound });
  const check = livenessAndProfileCheck(viaProxy.query);
  /** Milliseconds from the call to its failure, asserting it failed as a dependency failure. */
  const failure = async () => {
    const started = performance.now();
    await assert.rejects(check(token), DependencyUnavailableError);
    return performance.now() - started;
  };
  try {
    assert.equal(await outcome(check(token)), 'live');
    await proxy.stall();
    const first = Array.from({ length: 10 }, failure);
    await new Promise((resolve) => setTimeout(resolve, bound / 2));
    const behind = Array.from({ length: 10 }, failure); // arrive while the first statement hangs
    const waits = await Promise.all([...first, ...behind]);
    assert.ok(Math.max(...waits) < bound + 150, `waited ${Math.round(Math.max(...waits))} ms, bound ${bound} ms`);

    await proxy.restore();
    assert.equal(await outcome(check(token)), 'live');
  } finally {
    await viaProxy.close();
    await proxy.close();
  }
});
