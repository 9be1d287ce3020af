// The usage bookkeeping (usage.ts): tokens counted per app and UTC hour, summed over the last 24
// hours; the hourly counters expire; a failed flush keeps what it had and says so once; what waits
// is bounded; a secret's last use only moves forward; the timers flush, and stop() flushes once more.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { PrismaClient } from '@devplat/db';
import { createApp } from '@devplat/domain/apps';
import { type KeyValueStore, memoryStore, redisClientOf, redisStore } from '@devplat/kv';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { startFaultProxy } from '@devplat/test/fault-proxy';
import { eventually } from '@devplat/test/webhook-receiver';
import { flushUsageEvery, tokenCounterKey, tokenUsage, type UsageLog } from '../src/index.ts';

const redisUrl = process.env.REDIS_URL?.trim();
const openRedis = (url: string) => redisStore(url, { prefix: `test:${randomUUID()}:`, timeoutMs: 500 });
const stores: [string, () => KeyValueStore][] = [['memory', memoryStore]];
if (redisUrl) stores.push(['redis', () => openRedis(redisUrl)]);

const hour = 3_600_000;
/** 2026-11-25 20:41 UTC. */
const start = Date.UTC(2026, 10, 25, 20, 41);

/** A clock the test moves. */
function clock(at = start) {
  const time = { at, now: () => time.at };
  return time;
}

/** What the bookkeeping told its log, one line per call. */
function recordingLog() {
  const lines: { level: 'warn' | 'info'; message: string; details: Record<string, unknown> }[] = [];
  const log: UsageLog = {
    warn: (details, message) => lines.push({ level: 'warn', message, details }),
    info: (details, message) => lines.push({ level: 'info', message, details }),
  };
  return { log, lines };
}

for (const [name, open] of stores) {
  describe(`token counts on the ${name} store`, () => {
    const store = open();
    before(() => store.ready());
    after(() => store.close());

    test('each app counts per UTC hour under usage:tokens:{<appId>}:<yyyymmddhh>', async () => {
      const time = clock();
      const usage = tokenUsage(store, { now: time.now });
      const [a, b] = [randomUUID(), randomUUID()];
      for (let i = 0; i < 3; i += 1) usage.count(a);
      usage.count(b);
      assert.equal(await usage.lastDay(a), 0, 'nothing is written before a flush');
      await usage.flushCounts();
      assert.equal(tokenCounterKey(a, time.at), `usage:tokens:{${a}}:2026112520`);
      assert.deepEqual(await store.getMany([tokenCounterKey(a, time.at), tokenCounterKey(b, time.at)]), ['3', '1']);
      usage.count(a);
      await usage.flushCounts();
      assert.equal(await usage.lastDay(a), 4, 'a second flush adds to the counter');
      assert.equal(await usage.lastDay(b), 1);
    });

    test('the last day is the current hour and the 23 before it', async () => {
      const time = clock();
      const usage = tokenUsage(store, { now: time.now });
      const app = randomUUID();
      usage.count(app); // 20:41
      await usage.flushCounts();
      time.at += hour; // 21:41: a new counter
      usage.count(app);
      usage.count(app);
      await usage.flushCounts();
      assert.equal(await store.getMany([tokenCounterKey(app, time.at)]).then(([n]) => n), '2');
      assert.equal(await usage.lastDay(app), 3);
      time.at = start + 23 * hour; // the next day 19:41: 20:00 is the oldest hour summed
      assert.equal(await usage.lastDay(app), 3);
      time.at = start + 24 * hour; // 20:41: the 20:00 hour of the day before has left the window
      assert.equal(await usage.lastDay(app), 2);
    });

    test('what waits for a flush is bounded: new apps are dropped, and that is said once', async () => {
      const time = clock();
      const { log, lines } = recordingLog();
      const usage = tokenUsage(store, { now: time.now, log, maxPending: 2 });
      const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
      usage.count(a);
      usage.count(b);
      usage.count(c);
      usage.count(c);
      usage.count(a); // an app already waiting still counts
      assert.equal(lines.length, 1);
      assert.match(lines[0]?.message ?? '', /dropping new entries/);
      await usage.flushCounts();
      assert.deepEqual(await Promise.all([a, b, c].map((app) => usage.lastDay(app))), [2, 1, 0]);
      assert.equal(lines.at(-1)?.details.dropped, 2);
    });
  });
}

describe('token counts on a store that fails', () => {
  test('a flush that fails keeps its counts for the next one, and says so once', async () => {
    const store = memoryStore();
    const time = clock();
    const { log, lines } = recordingLog();
    let down = true;
    const failing: KeyValueStore = {
      ...store,
      getMany: (keys) => (down ? Promise.reject(new Error('store down')) : store.getMany(keys)),
      addToCounters: (counts, ttl) =>
        down ? Promise.reject(new Error('store down')) : store.addToCounters(counts, ttl),
    };
    const usage = tokenUsage(failing, { now: time.now, log });
    const app = randomUUID();
    usage.count(app);
    usage.count(app);
    await usage.flushCounts();
    usage.count(app);
    await usage.flushCounts();
    assert.deepEqual(
      lines.map((line) => line.level),
      ['warn'],
      'one warning for the outage, not one a flush',
    );
    assert.match(lines[0]?.message ?? '', /failed; kept for the next flush/);
    assert.equal(lines[0]?.details.pending, 1);
    down = false;
    await usage.flushCounts();
    assert.equal(await usage.lastDay(app), 3);
    assert.equal(lines.at(-1)?.level, 'info');
    assert.match(lines.at(-1)?.message ?? '', /works again/);
    await store.close();
  });
});

describe('token counts on Redis', { skip: redisUrl ? false : 'needs REDIS_URL' }, () => {
  test('each hourly counter expires about 26 hours after its last flush', async () => {
    const store = openRedis(redisUrl as string);
    await store.ready();
    try {
      const usage = tokenUsage(store);
      const app = randomUUID();
      usage.count(app);
      await usage.flushCounts();
      // Off Cluster the store sends a key without its hash tag's braces.
      const ttl = await (redisClientOf(store) as NonNullable<ReturnType<typeof redisClientOf>>).ttl(
        tokenCounterKey(app, Date.now()).replace(/[{}]/g, ''),
      );
      assert.ok(ttl > 26 * 3600 - 60 && ttl <= 26 * 3600, `ttl ${ttl}`);
    } finally {
      await store.close();
    }
  });

  test('a flush Redis refuses keeps its counts; once Redis answers, they are written once', async () => {
    const url = new URL(redisUrl as string);
    const proxy = await startFaultProxy({ host: url.hostname, port: Number(url.port || 6379) });
    const store = openRedis(proxy.proxied(url.href));
    await store.ready();
    const { log, lines } = recordingLog();
    const usage = tokenUsage(store, { log });
    const app = randomUUID();
    try {
      usage.count(app);
      await proxy.refuse();
      await usage.flushCounts();
      usage.count(app);
      await usage.flushCounts();
      assert.deepEqual(
        lines.map((line) => line.level),
        ['warn'],
      );
      await proxy.restore();
      // ioredis reconnects on its own (within a second); each failed flush keeps the counts.
      await eventually(async () => {
        await usage.flushCounts();
        return lines.at(-1)?.level === 'info';
      });
      assert.equal(await usage.lastDay(app), 2);
    } finally {
      await store.close();
      await proxy.close();
    }
  });
});

describe("a secret's last use", () => {
  let database: TestDatabase;
  let secretId: string;
  const lastUsedAt = async () =>
    (await database.prisma.clientSecret.findUniqueOrThrow({ where: { id: secretId } })).lastUsedAt;

  before(async () => {
    database = await createTestDatabase({ seed: false });
    const account = await database.prisma.account.create({
      data: { email: `${randomUUID()}@example.com`, passwordHash: 'x', displayName: 'Usage', kind: 'full' },
    });
    const { app } = await createApp(
      database.prisma,
      { accountId: account.id },
      { accountId: account.id, name: 'Used', redirectUris: [], scopes: ['city.public.read'] },
    );
    const [secret] = await database.prisma.clientSecret.findMany({ where: { appId: app.id } });
    secretId = (secret as { id: string }).id;
  });
  after(() => database?.drop());

  test('is written on a flush and only ever moves forward', async () => {
    const time = clock();
    const usage = tokenUsage(memoryStore(), { prisma: database.prisma, now: time.now });
    assert.equal(await lastUsedAt(), null);
    usage.secretUsed(secretId);
    assert.equal(await lastUsedAt(), null, 'nothing is written before a flush');
    await usage.flushLastUsed();
    assert.equal((await lastUsedAt())?.getTime(), start);

    // A process whose clock is behind (or whose flush arrives late) does not move it back.
    const late = tokenUsage(memoryStore(), { prisma: database.prisma, now: () => start - 60_000 });
    late.secretUsed(secretId);
    await late.flushLastUsed();
    assert.equal((await lastUsedAt())?.getTime(), start);

    time.at = start + 90_000;
    usage.secretUsed(secretId);
    usage.secretUsed(secretId);
    await usage.flushLastUsed();
    assert.equal((await lastUsedAt())?.getTime(), start + 90_000);
  });

  test('a flush PostgreSQL refuses keeps the last uses for the next one', async () => {
    const time = clock(start + 10 * hour);
    const { log, lines } = recordingLog();
    let down = true;
    const real = database.prisma;
    const flaky = {
      $executeRaw: (...args: Parameters<PrismaClient['$executeRaw']>) =>
        down ? Promise.reject(new Error('database down')) : real.$executeRaw(...args),
    } as unknown as PrismaClient;
    const usage = tokenUsage(memoryStore(), { prisma: flaky, now: time.now, log });
    usage.secretUsed(secretId);
    await usage.flushLastUsed();
    await usage.flushLastUsed();
    assert.deepEqual(
      lines.map((line) => line.level),
      ['warn'],
    );
    assert.doesNotMatch(JSON.stringify(lines), /secret_|hash/, 'ids and counts only');
    down = false;
    await usage.flushLastUsed();
    assert.equal((await lastUsedAt())?.getTime(), start + 10 * hour);
    assert.equal(lines.at(-1)?.level, 'info');
  });

  test('the timers flush, and stop() flushes once more', async () => {
    const store = memoryStore();
    const usage = tokenUsage(store, { prisma: database.prisma });
    const app = randomUUID();
    const flushing = flushUsageEvery(usage, { countFlushMs: 20, lastUsedFlushMs: 20 });
    try {
      usage.count(app);
      const before = Date.now();
      usage.secretUsed(secretId);
      await eventually(async () => (await usage.lastDay(app)) === 1);
      await eventually(async () => ((await lastUsedAt())?.getTime() ?? 0) >= before);
    } finally {
      await flushing.stop();
    }
    // Stopped: nothing flushes on its own any more, but stop() flushed what was pending.
    const idle = flushUsageEvery(usage, { countFlushMs: 3_600_000, lastUsedFlushMs: 3_600_000 });
    usage.count(app);
    usage.count(app);
    assert.equal(await usage.lastDay(app), 1);
    await idle.stop();
    assert.equal(await usage.lastDay(app), 3);
    await store.close();
  });
});
