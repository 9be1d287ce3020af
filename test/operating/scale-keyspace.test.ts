// seed:scale's Redis state is the platform's: a consent given over HTTP leaves its grant, code and
// refresh-token family and the player's session under one prefix; the seeder, run on the same
// consent, writes under another. Both must have the same kinds of keys (ids aside), each value
// with the same members and about the same time to live, whatever the key format becomes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type KeyValueStore, redisClientOf } from '@devplat/kv';
import { allowOverHttp, createNamedApp } from '@devplat/test/connected-apps';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';
import { kindOf } from '@devplat/test/scale/measure';
import { seedPlayerSessions, seedRefreshFamilies } from '@devplat/test/scale/redis';
import { openScaleStore, type ScaleStore } from '@devplat/test/scale/target';

const redisUrl = process.env.REDIS_URL?.trim() || null;
const run = randomUUID();
const livePrefix = `devplat-test:${run}-live:`;
const seededPrefix = `devplat-test:${run}-seeded:`;

interface Entry {
  /** What the value holds: a JSON object's members (nested ones too), a number, or a set's kinds of members. */
  shape: string;
  ttl: number;
}

/** A JSON value's members, nested objects' members too where they are names, not data (URLs). */
function shapeOf(value: unknown): string {
  if (typeof value !== 'object' || value === null) return typeof value;
  if (Array.isArray(value)) return 'array';
  const members = Object.entries(value).map(([name, member]) =>
    /^[A-Za-z]\w*$/.test(name) ? `${name}:${shapeOf(member)}` : `*:${shapeOf(member)}`,
  );
  return `{${members.toSorted().join(',')}}`;
}

/** Every key under the prefix, by kind (ids written *): each kind's shape and its longest time to live. */
async function keyspace(unprefixed: KeyValueStore, prefix: string): Promise<Map<string, Entry>> {
  const redis = redisClientOf(unprefixed);
  assert.ok(redis);
  const kinds = new Map<string, Entry>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const type = await redis.type(key);
      // A stream (an app's request log) is no value of JSON: its kind is enough.
      const shape =
        type === 'set'
          ? `set of ${[...new Set((await redis.smembers(key)).map(kindOf))].toSorted().join(', ')}`
          : type === 'stream'
            ? 'stream'
            : shapeOf(JSON.parse((await redis.get(key)) as string));
      const kind = kindOf(key.slice(prefix.length));
      const ttl = Math.max(kinds.get(kind)?.ttl ?? 0, await redis.ttl(key));
      kinds.set(kind, { shape, ttl });
    }
  } while (cursor !== '0');
  return kinds;
}

describe('seed:scale keyspace', { skip: redisUrl ? false : 'needs REDIS_URL' }, () => {
  let platform: TestPlatform;
  let seeded: ScaleStore;
  before(async () => {
    platform = await startTestPlatform({ REDIS_KEY_PREFIX: livePrefix });
    seeded = await openScaleStore({ url: redisUrl as string, prefix: seededPrefix, fresh: true });
  });
  after(async () => {
    await seeded?.close();
    await platform?.close();
    // Both prefixes' keys live for a month: gone with the test.
    for (const prefix of [livePrefix, seededPrefix]) {
      await (await openScaleStore({ url: redisUrl as string, prefix, fresh: true })).close();
    }
  });

  test('a seeded family and session are what a consent over HTTP leaves', async () => {
    const prisma = platform.platform.database.prisma;
    const app = await createNamedApp(prisma, 'Keyspace');
    const player = await createPlayer(prisma, app.developer.id);
    await allowOverHttp(platform.base, app, player);

    const seed = {
      database: platform.platform.database,
      store: seeded.store,
      seed: 'keyspace',
      now: new Date(),
      pairwiseSecret: 'p'.repeat(32),
      resource: `${platform.base}`,
      progress: () => {},
    };
    assert.equal(await seedRefreshFamilies(seed, 10), 1);
    assert.equal(await seedPlayerSessions(seed, 1, 1), 1);

    const real = await keyspace(seeded.unprefixed, livePrefix);
    const written = await keyspace(seeded.unprefixed, seededPrefix);
    // What the seeder writes: the grant's entries and index, and the player's session.
    const ofFamiliesAndSessions = (kind: string) => kind.startsWith('oidc:') || kind.startsWith('player-session:');
    assert.deepEqual([...written.keys()].toSorted(), [...real.keys()].filter(ofFamiliesAndSessions).toSorted());
    for (const [kind, entry] of written) {
      const expected = real.get(kind) as Entry;
      assert.equal(entry.shape, expected.shape, `${kind}: the value's members`);
      assert.ok(
        Math.abs(entry.ttl - expected.ttl) < 300,
        `${kind}: time to live ${entry.ttl} s, live ${expected.ttl} s`,
      );
    }
  });
});
