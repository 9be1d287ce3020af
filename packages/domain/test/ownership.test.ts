// Each room's tables are touched only by its store.ts: every source file of the repository is read,
// and any statement on a room's table found outside the room's store fails, naming the file.
// Test code is not searched: tests arrange rows directly (states no operation makes) and inspect
// what an operation left behind.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';

const root = join(import.meta.dirname, '../../..');

interface Room {
  store: string;
  /** Any of these outside the store is a write the room does not make. */
  writes: RegExp[];
  /** Any of these outside the store (and the hot-path reads) is a read the room does not serve. */
  reads: RegExp[];
}

const writeMethods =
  'create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany';
const readMethods = 'findUnique|findUniqueOrThrow|findFirst|findFirstOrThrow|findMany|count|aggregate|groupBy';

function room(store: string, delegate: string, relation: string, table: string): Room {
  return {
    store,
    writes: [
      new RegExp(`\\.${delegate}\\.(?:${writeMethods})\\(`),
      // Nested writes through a relation: data: { consents: { create: ... } }
      new RegExp(`\\b${relation}\\s*:\\s*\\{\\s*(?:${writeMethods}|connect|connectOrCreate|set|disconnect)\\b`),
      // Raw SQL, through Prisma ($executeRaw, $queryRaw) or pg.
      new RegExp(`\\b(?:INSERT\\s+INTO|UPDATE|DELETE\\s+FROM|TRUNCATE(?:\\s+TABLE)?)\\s+"?${table}"?\\b`, 'i'),
    ],
    reads: [
      new RegExp(`\\.${delegate}\\.(?:${readMethods})\\(`),
      // DELETE FROM is a write, found above.
      new RegExp(`(?<!\\bDELETE\\s+)\\b(?:FROM|JOIN)\\s+"?${table}"?\\b`, 'i'),
    ],
  };
}

const rooms: Record<string, Room> = {
  consents: room('packages/domain/src/consents/store.ts', 'consent', 'consents', 'consents'),
  players: room('packages/domain/src/players/store.ts', 'sandboxPlayer', 'sandboxPlayers', 'sandbox_players'),
};

/**
 * Reads that stay one statement across rooms, on purpose: they run on every call, where a read per
 * room would add round trips to the hot path. They may read a room's table, never write it. (The
 * app directory's read, packages/apps/src/usable-app.ts, touches no consent or player.)
 */
const hotPathReads: Record<string, string[]> = {
  // The api's per-call liveness statement: a user token's consent and its player, beside the app,
  // its secret and the revoked token ids.
  'services/api/src/liveness.ts': ['consents', 'players'],
};

const skippedDirectories = new Set(['node_modules', '.git', '.toolchain', '.data', '.run', 'generated', 'test']);
const isTestFile = (name: string) => /\.test\.[cm]?[jt]s$/.test(name);

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return skippedDirectories.has(entry.name) ? [] : sourceFiles(path);
    return /\.[cm]?[jt]s$/.test(entry.name) && !isTestFile(entry.name) ? [path] : [];
  });
}

/** Each statement on a room's table outside its store, as "file: room write|read /pattern/". */
function trespasses(files: { path: string; text: string }[]): string[] {
  const found: string[] = [];
  for (const { path, text } of files) {
    for (const [name, { store, writes, reads }] of Object.entries(rooms)) {
      if (path === store) continue;
      const mayRead = hotPathReads[path]?.includes(name) ?? false;
      for (const pattern of writes) if (pattern.test(text)) found.push(`${path}: ${name} write ${pattern}`);
      if (mayRead) continue;
      for (const pattern of reads) if (pattern.test(text)) found.push(`${path}: ${name} read ${pattern}`);
    }
  }
  return found;
}

describe('each room owns its tables', () => {
  const files = sourceFiles(root).map((path) => ({
    path: relative(root, path).replaceAll('\\', '/'),
    text: readFileSync(path, 'utf8'),
  }));

  test('no source file outside a room’s store reads or writes its tables', () => {
    assert.deepEqual(trespasses(files), []);
  });

  test('each store and each hot-path read exists and still touches its tables', () => {
    const text = (path: string) => files.find((file) => file.path === path)?.text ?? '';
    for (const [name, { store, writes }] of Object.entries(rooms)) {
      assert.ok(
        writes.some((pattern) => pattern.test(text(store))),
        `${store} writes no ${name}`,
      );
    }
    for (const [path, names] of Object.entries(hotPathReads)) {
      for (const name of names) {
        const reads = rooms[name]?.reads ?? [];
        assert.ok(
          reads.some((pattern) => pattern.test(text(path))),
          `${path} no longer reads ${name}: drop it`,
        );
      }
    }
  });

  test('the search finds every kind of statement', () => {
    const offending = [
      'await prisma.consent.update({ where: { id } })',
      'await tx.consent.createMany({ data })',
      'await tx.app.update({ data: { consents: { updateMany: { where, data } } } })',
      'await prisma.$executeRaw`UPDATE consents SET status = $1`',
      "await client.query('DELETE FROM consents WHERE id = $1', [id])",
      'await prisma.consent.findMany({ where })',
      'await prisma.$queryRaw`SELECT 1 FROM consents c`',
      'await tx.sandboxPlayer.updateMany({ where, data })',
      'await tx.account.create({ data: { sandboxPlayers: { create: [] } } })',
      "await pool.query('INSERT INTO sandbox_players (id) VALUES ($1)', [id])",
      'await prisma.sandboxPlayer.findUnique({ where })',
    ];
    for (const line of offending) {
      assert.equal(trespasses([{ path: 'services/x/src/x.ts', text: line }]).length, 1, line);
    }
    const harmless = [
      'payload: consentGrantedPayload({ clientId, sub, consent })',
      'granted_at: subject.consent.grantedAt.toISOString()',
      "logger.info('consent updated from the console')",
    ];
    for (const line of harmless) assert.deepEqual(trespasses([{ path: 'services/x/src/x.ts', text: line }]), [], line);
    const hotPathWrite = 'await prisma.$executeRaw`UPDATE sandbox_players SET status = $1`';
    assert.equal(trespasses([{ path: 'services/api/src/liveness.ts', text: hotPathWrite }]).length, 1);
  });
});
