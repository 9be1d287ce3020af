// Each room's tables are touched only by its store.ts: every source file of the repository is read,
// and any statement on a room's table found outside the room's store fails, naming the file.
// Test code is not searched: tests arrange rows directly (states no operation makes) and inspect
// what an operation left behind.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';

const root = join(import.meta.dirname, '../../../..');

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

/**
 * `relation` is how other models name the room's rows. Through a to-many relation any nested
 * method writes the room's rows (connect sets their foreign key); through a to-one relation
 * (`toOne`), only those that create, change or delete the related row itself do.
 */
function room(store: string, delegate: string, relation: string | null, table: string, toOne = false): Room {
  const nestedMethods = toOne
    ? 'create|connectOrCreate|update|upsert|delete'
    : `${writeMethods}|connect|connectOrCreate|set|disconnect`;
  return {
    store,
    writes: [
      new RegExp(`\\.${delegate}\\.(?:${writeMethods})\\(`),
      // Nested writes through a relation: data: { consents: { create: ... } }
      ...(relation ? [new RegExp(`\\b${relation}\\s*:\\s*\\{\\s*(?:${nestedMethods})\\b`)] : []),
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

const appsStore = 'packages/3-domain/domain/src/apps/store.ts';
const eventsStore = 'packages/3-domain/domain/src/events/store.ts';
const registryStore = 'packages/3-domain/domain/src/registry/store.ts';

const rooms: Record<string, Room> = {
  consents: room('packages/3-domain/domain/src/consents/store.ts', 'consent', 'consents', 'consents'),
  players: room('packages/3-domain/domain/src/players/store.ts', 'sandboxPlayer', 'sandboxPlayers', 'sandbox_players'),
  // Apps and their secrets are one room with one store: an app is created with its first secret.
  apps: room(appsStore, 'app', 'apps', 'apps'),
  client_secrets: room(appsStore, 'clientSecret', 'secrets', 'client_secrets'),
  accounts: room('packages/3-domain/domain/src/accounts/store.ts', 'account', 'account', 'accounts', true),
  api_keys: room('packages/3-domain/domain/src/api-keys/store.ts', 'apiKey', 'apiKeys', 'api_keys'),
  // An event and its deliveries are one room: the worker's outbox pass writes both in one statement.
  outbox_events: room(eventsStore, 'outboxEvent', 'events', 'outbox_events'),
  webhook_deliveries: room(eventsStore, 'webhookDelivery', 'deliveries', 'webhook_deliveries'),
  audit_records: room('packages/3-domain/domain/src/audit/store.ts', 'auditRecord', null, 'audit_records'),
  revoked_tokens: room('packages/3-domain/domain/src/revocations/store.ts', 'revokedToken', null, 'revoked_tokens'),
  countries: room(registryStore, 'country', 'country', 'countries', true),
  cities: room(registryStore, 'city', 'cities', 'cities'),
};

/**
 * Reads that stay one statement across rooms, on purpose: they run on every call (or every batch),
 * where a read per room would add round trips to the hot path. They may read a room's table, never
 * write it.
 */
const hotPathReads: Record<string, string[]> = {
  // The api's per-call liveness statement: a user token's consent and its player, beside the app,
  // its account, its secret and the revoked token ids.
  'services/api/src/liveness.ts': ['consents', 'players', 'apps', 'client_secrets', 'accounts', 'revoked_tokens'],
  // The app directory's per-request read (token endpoint, consent screen): the app if it and its
  // account are active, with its active secrets' hashes.
  'packages/3-domain/app-directory/src/usable-app.ts': ['apps', 'client_secrets', 'accounts'],
  // The worker's outbox pass and delivery claim: each event's or delivery's app webhook URL or
  // signing secret, joined in the one statement that locks the batch.
  [eventsStore]: ['apps'],
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
    // Each line, and the rooms whose tables it touches.
    const offending: [string, ...string[]][] = [
      ['await prisma.consent.update({ where: { id } })', 'consents'],
      ['await tx.consent.createMany({ data })', 'consents'],
      ['await tx.app.update({ data: { consents: { updateMany: { where, data } } } })', 'apps', 'consents'],
      ['await prisma.$executeRaw`UPDATE consents SET status = $1`', 'consents'],
      ["await client.query('DELETE FROM consents WHERE id = $1', [id])", 'consents'],
      ['await prisma.consent.findMany({ where })', 'consents'],
      ['await prisma.$queryRaw`SELECT 1 FROM consents c`', 'consents'],
      ['await tx.sandboxPlayer.updateMany({ where, data })', 'players'],
      ['await tx.account.create({ data: { sandboxPlayers: { create: [] } } })', 'accounts', 'players'],
      ["await pool.query('INSERT INTO sandbox_players (id) VALUES ($1)', [id])", 'players'],
      ['await prisma.sandboxPlayer.findUnique({ where })', 'players'],
      ['await tx.app.updateMany({ where, data })', 'apps'],
      ["await tx.account.update({ data: { apps: { create: { name: 'x' } } } })", 'accounts', 'apps'],
      ['await prisma.$executeRaw`UPDATE apps SET status = $1`', 'apps'],
      ['await prisma.app.findMany({ where })', 'apps'],
      ['await prisma.$queryRaw`SELECT a.id FROM apps a`', 'apps'],
      ['await tx.clientSecret.create({ data })', 'client_secrets'],
      ['await tx.app.create({ data: { name, secrets: { create: { hash } } } })', 'apps', 'client_secrets'],
      ["await client.query('DELETE FROM client_secrets WHERE id = $1', [id])", 'client_secrets'],
      ['await prisma.$queryRaw`SELECT hash FROM client_secrets`', 'client_secrets'],
      ['await tx.account.updateMany({ where, data })', 'accounts'],
      ['await tx.outboxEvent.create({ data: { account: { create: { email } } } })', 'accounts', 'outbox_events'],
      ["await pool.query('INSERT INTO accounts (id) VALUES ($1)', [id])", 'accounts'],
      ['await prisma.account.findUnique({ where })', 'accounts'],
      ['SELECT a.client_id FROM apps a JOIN accounts acc ON acc.id = a.account_id', 'accounts', 'apps'],
      ['await tx.outboxEvent.create({ data })', 'outbox_events'],
      ['await tx.app.update({ data: { events: { create: [] } } })', 'apps', 'outbox_events'],
      ['await prisma.webhookDelivery.updateMany({ where, data })', 'webhook_deliveries'],
      ['DELETE FROM webhook_deliveries WHERE status = $1', 'webhook_deliveries'],
      ['await tx.auditRecord.create({ data })', 'audit_records'],
      ['await prisma.$queryRaw`SELECT * FROM audit_records`', 'audit_records'],
      ['await prisma.revokedToken.upsert({ where, create, update })', 'revoked_tokens'],
      ["await client.query('DELETE FROM revoked_tokens WHERE expires_at < now()')", 'revoked_tokens'],
      ['await prisma.city.upsert({ where, create, update })', 'cities'],
      ['await prisma.country.findMany({ where })', 'countries'],
      ['await tx.country.update({ data: { cities: { create: [] } } })', 'countries', 'cities'],
    ];
    const roomsOf = (found: string[]) => found.map((line) => line.split(' ')[1]).toSorted();
    for (const [line, ...touched] of offending) {
      const found = trespasses([{ path: 'services/x/src/x.ts', text: line }]);
      assert.equal(found.length, touched.length, line);
      assert.deepEqual(roomsOf(found), touched.toSorted(), line);
    }
    const harmless = [
      'payload: consentGrantedPayload({ clientId, sub, consent })',
      'granted_at: subject.consent.grantedAt.toISOString()',
      "logger.info('consent updated from the console')",
      'include: { secrets: true }',
      'const apps = await appsOfAccount(prisma, account.id)',
      // A to-one connect sets the foreign key of the row written, not the app's or the account's.
      'await tx.sessionNote.create({ data: { type, app: { connect: { id } }, payload } })',
      'await tx.sessionNote.create({ data: { type, account: { connect: { id } }, payload } })',
      "cities: { where: { reviewed: true }, orderBy: { id: 'asc' } }",
      'where: { username, account: { email } }',
    ];
    for (const line of harmless) assert.deepEqual(trespasses([{ path: 'services/x/src/x.ts', text: line }]), [], line);
    const hotPathWrite = 'await prisma.$executeRaw`UPDATE sandbox_players SET status = $1`';
    assert.equal(trespasses([{ path: 'services/api/src/liveness.ts', text: hotPathWrite }]).length, 1);
    const directoryWrite = 'await prisma.$executeRaw`UPDATE client_secrets SET status = $1`';
    assert.equal(
      trespasses([{ path: 'packages/3-domain/app-directory/src/usable-app.ts', text: directoryWrite }]).length,
      1,
    );
  });
});
