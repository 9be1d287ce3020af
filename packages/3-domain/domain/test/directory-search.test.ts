import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { AccountStatus, PlayerStatus } from '@devplat/db';
import { Refusal, type RefusalCode } from '@devplat/domain/refusal';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { emailsOfAccounts, searchAccounts } from '../src/accounts/index.ts';
import { queryAudit } from '../src/audit/index.ts';
import { playerCountsOfAccount, searchPlayers } from '../src/players/index.ts';

let database: TestDatabase;
before(async () => {
  database = await createTestDatabase({ seed: false });
});
after(() => database.drop());

/** A domain of e-mail addresses no other test's accounts use. */
const someDomain = () => `${randomUUID().slice(0, 8)}.test`;

async function account(email: string, createdAt: Date, status: AccountStatus = 'active') {
  return database.prisma.account.create({
    data: { email, passwordHash: 'unused', displayName: 'Dev', kind: 'full', status, createdAt },
  });
}

async function player(accountId: string, username: string, status: PlayerStatus = 'active', createdAt = new Date()) {
  return database.prisma.sandboxPlayer.create({
    data: { accountId, username, passwordHash: 'unused', status, createdAt },
  });
}

function refused(code: RefusalCode, detail: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, code);
    assert.match(error.detail, detail);
    return true;
  };
}

describe('accounts', () => {
  const domain = someDomain();
  const emails = (found: { items: { email: string }[] }) => found.items.map((row) => row.email);

  before(async () => {
    await account(`ada@${domain}`, new Date('2024-01-01T00:00:00Z'));
    await account(`a_b@${domain}`, new Date('2024-02-01T00:00:00Z'), 'suspended');
    await account(`axb@${domain}`, new Date('2024-03-01T00:00:00Z'));
    await account(`grace@${domain}`, new Date('2024-04-01T00:00:00Z'));
  });

  test('by the whole e-mail address in any case', async () => {
    assert.deepEqual(emails(await searchAccounts(database.prisma, { email: `ADA@${domain.toUpperCase()}` })), [
      `ada@${domain}`,
    ]);
    assert.deepEqual(emails(await searchAccounts(database.prisma, { email: `ad@${domain}` })), []);
  });

  test('by a part of the address in any case, newest first; _ and % are only themselves', async () => {
    assert.deepEqual(emails(await searchAccounts(database.prisma, { emailContains: `@${domain.toUpperCase()}` })), [
      `grace@${domain}`,
      `axb@${domain}`,
      `a_b@${domain}`,
      `ada@${domain}`,
    ]);
    assert.deepEqual(emails(await searchAccounts(database.prisma, { emailContains: `a_b@${domain}` })), [
      `a_b@${domain}`,
    ]);
  });

  test('by status and by when they were created', async () => {
    const mine = { emailContains: domain };
    assert.deepEqual(emails(await searchAccounts(database.prisma, { ...mine, status: 'suspended' })), [
      `a_b@${domain}`,
    ]);
    const created = await searchAccounts(database.prisma, {
      ...mine,
      createdSince: '2024-02-01',
      createdUntil: '2024-04-01T00:00:00Z',
    });
    assert.deepEqual(emails(created), [`axb@${domain}`, `a_b@${domain}`]);
  });

  test('page by page with no gap and no repeat', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const found = await searchAccounts(database.prisma, { emailContains: domain, limit: 3, cursor });
      seen.push(...emails(found));
      cursor = found.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(seen, [`grace@${domain}`, `axb@${domain}`, `a_b@${domain}`, `ada@${domain}`]);
  });

  test('a bad status, both kinds of e-mail search, or a cursor of another listing is refused', async () => {
    await assert.rejects(
      searchAccounts(database.prisma, { status: 'closed' }),
      refused('INVALID_INPUT', /status must be one of active, suspended \(got "closed"\)/),
    );
    await assert.rejects(
      searchAccounts(database.prisma, { email: `ada@${domain}`, emailContains: 'ada' }),
      refused('INVALID_INPUT', /not both/),
    );
    await database.prisma.auditRecord.create({
      data: { actorType: 'operator', actorId: 'ops', action: 'x.y', targetType: 'app', targetId: randomUUID() },
    });
    await database.prisma.auditRecord.create({
      data: { actorType: 'operator', actorId: 'ops', action: 'x.y', targetType: 'app', targetId: randomUUID() },
    });
    const { nextCursor } = await queryAudit(database.prisma, { limit: 1 });
    assert.ok(nextCursor);
    await assert.rejects(
      searchAccounts(database.prisma, { cursor: nextCursor }),
      refused('INVALID_INPUT', /the cursor is not one this listing gave/),
    );
  });

  test('the e-mails of several accounts at once', async () => {
    const ada = await searchAccounts(database.prisma, { email: `ada@${domain}` });
    const id = ada.items[0]?.id as string;
    const found = await emailsOfAccounts(database.prisma, [id, id, randomUUID(), 'not-a-uuid']);
    assert.deepEqual([...found], [[id, `ada@${domain}`]]);
  });
});

describe('players', () => {
  const tag = randomUUID().slice(0, 6);
  let owner: { id: string; email: string };
  let other: { id: string; email: string };

  before(async () => {
    owner = await account(`owner@${someDomain()}`, new Date());
    other = await account(`other@${someDomain()}`, new Date());
    const base = Date.parse('2024-05-01T00:00:00Z');
    await player(owner.id, `${tag}-alice`, 'active', new Date(base));
    await player(owner.id, `${tag}-alina`, 'disabled', new Date(base + 1000));
    await player(owner.id, `${tag}_bob`, 'active', new Date(base + 2000));
    await player(other.id, `${tag}-alan`, 'active', new Date(base + 3000));
  });
  const names = (found: { items: { username: string }[] }) => found.items.map((row) => row.username);

  test('by the whole username in any case, or by its beginning, newest first', async () => {
    assert.deepEqual(names(await searchPlayers(database.prisma, { username: `${tag}-ALICE` })), [`${tag}-alice`]);
    assert.deepEqual(names(await searchPlayers(database.prisma, { usernamePrefix: `${tag}-AL` })), [
      `${tag}-alan`,
      `${tag}-alina`,
      `${tag}-alice`,
    ]);
    // _ is no wildcard: "<tag>-" does not begin "<tag>_bob".
    assert.deepEqual(names(await searchPlayers(database.prisma, { usernamePrefix: `${tag}_` })), [`${tag}_bob`]);
  });

  test("by their account's e-mail in any case, and by status", async () => {
    assert.deepEqual(
      names(await searchPlayers(database.prisma, { accountEmail: owner.email.toUpperCase(), usernamePrefix: tag })),
      [`${tag}_bob`, `${tag}-alina`, `${tag}-alice`],
    );
    assert.deepEqual(names(await searchPlayers(database.prisma, { usernamePrefix: tag, status: 'disabled' })), [
      `${tag}-alina`,
    ]);
    await assert.rejects(
      searchPlayers(database.prisma, { accountEmail: 'nobody@nowhere.test' }),
      refused('ACCOUNT_NOT_FOUND', /no developer account has the e-mail nobody@nowhere\.test/),
    );
    await assert.rejects(
      searchPlayers(database.prisma, { status: 'banned' }),
      refused('INVALID_INPUT', /status must be one of active, disabled/),
    );
  });

  test('page by page with no gap and no repeat', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const found = await searchPlayers(database.prisma, { usernamePrefix: tag, limit: 1, cursor });
      seen.push(...names(found));
      cursor = found.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(seen, [`${tag}-alan`, `${tag}_bob`, `${tag}-alina`, `${tag}-alice`]);
  });

  test("an account's players counted by status", async () => {
    assert.deepEqual(await playerCountsOfAccount(database.prisma, owner.id), { active: 2, disabled: 1 });
    assert.deepEqual(await playerCountsOfAccount(database.prisma, randomUUID()), { active: 0, disabled: 0 });
  });
});
