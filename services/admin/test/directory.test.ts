// The operator's reading commands (audit, find-accounts, show-account, find-apps, show-app,
// find-players, show-player),
// run as main.ts runs them (an invocation, an io) against a real PostgreSQL of their own.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { UsageError } from '@devplat/command-line';
import type { PrismaClient } from '@devplat/db';
import { Refusal, type RefusalCode } from '@devplat/domain/refusal';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { createPlayer } from '@devplat/test/players';
import { findAccountsCommand, showAccountCommand } from '../src/account-directory.ts';
import { findAppsCommand, showAppCommand } from '../src/app-directory.ts';
import { auditCommand } from '../src/audit.ts';
import type { Command } from '../src/command.ts';
import { listConsentsCommand } from '../src/consent-listing.ts';
import { commandHelp } from '../src/help.ts';
import { findPlayersCommand, showPlayerCommand } from '../src/player-directory.ts';

const needsPostgres = { skip: realPostgresUrl ? false : 'needs DATABASE_URL (a real PostgreSQL)' };
const commands = [
  auditCommand,
  findAccountsCommand,
  showAccountCommand,
  findAppsCommand,
  showAppCommand,
  findPlayersCommand,
  showPlayerCommand,
  listConsentsCommand,
];

interface Ran {
  out: string;
  notes: string[];
}

let database: TestDatabase;
let prisma: PrismaClient;

/** Runs a command with these options and arguments; resolves with what it wrote. */
async function run(
  command: Command,
  options: Record<string, string | boolean> = {},
  args: Record<string, string> = {},
): Promise<Ran> {
  const ran: Ran = { out: '', notes: [] };
  await command.run({
    options,
    args,
    env: { DATABASE_URL: database.url as string },
    io: {
      out: (text) => {
        ran.out += text;
      },
      note: (text) => {
        ran.notes.push(text);
      },
    },
  });
  return ran;
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

function refused(code: RefusalCode, detail: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, code);
    assert.match(error.detail, detail);
    return true;
  };
}

function usage(message: RegExp) {
  return (error: unknown) => {
    // A usage error: the admin answers it with exit 64 (admin.test.ts).
    assert.ok(error instanceof UsageError, String(error));
    assert.match(error.message, message);
    return true;
  };
}

test('each command has a help page with its options', () => {
  for (const command of commands) {
    const help = commandHelp(command);
    assert.ok(help.startsWith(`Usage: npm run -s admin -- ${command.path.join(' ')}`), help);
    assert.match(help, /^Options:$/m);
  }
  assert.match(commandHelp(auditCommand), /--jsonl/);
  assert.match(commandHelp(auditCommand), /Rows per page, 1 to 200; default 50/);
});

describe('with a database', needsPostgres, () => {
  before(async () => {
    database = await createTestDatabase({ seed: false });
    prisma = database.prisma;
  });
  after(() => database?.drop());

  describe('audit', () => {
    let developer: { id: string; email: string };
    let app: { id: string; clientId: string };
    let player: { player: { id: string }; username: string };
    const operator = `ops-${randomUUID().slice(0, 8)}`;

    before(async () => {
      // createApp writes app.create by the developer; the rest as operators and the console would.
      const created = await createTestApp(prisma);
      developer = created.developer;
      app = created.app;
      player = await createPlayer(prisma, developer.id);
      const base = Date.parse('2025-01-10T00:00:00Z');
      await prisma.auditRecord.createMany({
        data: [
          ...Array.from({ length: 5 }, (_, n) => ({
            actorType: 'operator',
            actorId: operator,
            action: n % 2 === 0 ? 'player.disable' : 'player.enable',
            targetType: 'sandbox_player',
            targetId: player.player.id,
            details: { username: player.username, reason: 'x'.repeat(n === 4 ? 300 : 5) },
            createdAt: new Date(base + n * 60_000),
          })),
          {
            actorType: 'account',
            actorId: developer.id,
            action: 'app.edit',
            targetType: 'app',
            targetId: app.id,
            details: {},
            requestId: 'req-9',
            createdAt: new Date(base + 10 * 60_000),
          },
        ],
      });
    });

    test('a page as a table, newest first, with the cursor of the next page; the cursor goes on', async () => {
      const first = await run(auditCommand, { actor: operator, limit: '3' });
      const [heading, ...rows] = lines(first.out);
      assert.match(heading as string, /^TIME\s+ACTOR\s+ACTION\s+TARGET\s+DETAILS$/);
      assert.equal(rows.length, 4);
      assert.match(
        rows[0] as string,
        new RegExp(`^2025-01-10T00:04:00\\.000Z  operator:${operator}  player\\.disable `),
      );
      assert.match(rows[0] as string, new RegExp(`sandbox_player:${player.player.id}`));
      // Long details are cut in the table.
      assert.match(rows[0] as string, /x…$/);
      assert.ok((rows[0] as string).length < 250);
      const next = /^next page: --cursor (\S+)$/.exec(rows[3] as string)?.[1];
      assert.ok(next, first.out);
      const second = await run(auditCommand, { actor: operator, limit: '3', cursor: next });
      const rest = lines(second.out);
      assert.equal(rest.length, 4);
      assert.match(rest[1] as string, /^2025-01-10T00:01:00\.000Z /);
      assert.match(rest[2] as string, /^2025-01-10T00:00:00\.000Z .*\{"reason":"xxxxx","username":"player-/);
      assert.equal(rest[3], 'last page');
    });

    test("--actor finds an account's records by id or e-mail, shown by its e-mail", async () => {
      for (const actor of [developer.id, developer.email.toUpperCase()]) {
        const { out } = await run(auditCommand, { actor, since: '2025-01-01', until: '2025-02-01' });
        const rows = lines(out).slice(1, -1);
        assert.equal(rows.length, 1, out);
        assert.match(rows[0] as string, new RegExp(`account:${developer.email}  app\\.edit  app:${app.id}`));
      }
      assert.equal(lines((await run(auditCommand, { actor: 'nobody' })).out)[0], 'no audit records match');
    });

    test('--action takes a prefix, --target a client id, a username or an e-mail', async () => {
      const players = await run(auditCommand, { action: 'player.', target: `player:${player.username}` });
      assert.equal(lines(players.out).length, 1 + 5 + 1);
      const appRecords = await run(auditCommand, { target: `app:${app.clientId}` });
      // createApp's app.create (now), and the app.edit above (in 2025).
      const actions = lines(appRecords.out)
        .slice(1, -1)
        .map((row) => row.split(/\s+/)[2]);
      assert.deepEqual(actions, ['app.create', 'app.edit']);
      const account = await run(auditCommand, { target: `account:${developer.email}` });
      assert.equal(lines(account.out)[0], 'no audit records match');
    });

    test('refused filters: an unknown target type, a name nobody has, a bad time or cursor, a malformed option', async () => {
      await assert.rejects(
        run(auditCommand, { target: 'widget:1' }),
        refused('INVALID_INPUT', /unknown target type "widget"/),
      );
      await assert.rejects(run(auditCommand, { target: 'app:svc_nothing' }), refused('APP_NOT_FOUND', /svc_nothing/));
      await assert.rejects(run(auditCommand, { target: 'player:nobody' }), refused('PLAYER_NOT_FOUND', /nobody/));
      await assert.rejects(run(auditCommand, { since: 'last week' }), refused('INVALID_INPUT', /ISO 8601/));
      await assert.rejects(run(auditCommand, { cursor: 'abc' }), refused('INVALID_INPUT', /cursor/));
      await assert.rejects(run(auditCommand, { limit: '500' }), refused('INVALID_INPUT', /from 1 to 200/));
      await assert.rejects(run(auditCommand, { limit: 'ten' }), usage(/--limit must be a whole number/));
      await assert.rejects(run(auditCommand, { target: 'app:' }), usage(/--target takes <type> or <type>:<id>/));
    });

    test('--jsonl writes only JSON Lines on stdout, oldest first, and the count on stderr', async () => {
      const since = '2025-01-10T00:00:00Z';
      const until = '2025-01-10T00:10:00Z';
      const { out, notes } = await run(auditCommand, { jsonl: true, since, until });
      const records = lines(out).map((line) => JSON.parse(line));
      assert.equal(records.length, 5);
      assert.deepEqual(
        records.map((record) => record.created_at),
        [0, 1, 2, 3, 4].map((n) => new Date(Date.parse(since) + n * 60_000).toISOString()),
      );
      assert.equal(records[4].details.reason.length, 300);
      assert.equal(records[0].target_type, 'sandbox_player');
      assert.deepEqual(notes, [`audit: 5 records from ${since} until ${until}`]);
      const withEdit = await run(auditCommand, { jsonl: true, since, until: '2025-01-11', actor: developer.email });
      assert.equal(JSON.parse(withEdit.out).request_id, 'req-9');
    });

    test('--jsonl needs both ends of the range and takes no page options', async () => {
      await assert.rejects(
        run(auditCommand, { jsonl: true, since: '2025-01-01' }),
        usage(/give both --since and --until/),
      );
      await assert.rejects(
        run(auditCommand, { jsonl: true, since: '2025-01-01', until: '2025-02-01', limit: '5' }),
        usage(/--limit and --cursor are for pages/),
      );
    });
  });

  describe('accounts and players', () => {
    const domain = `${randomUUID().slice(0, 8)}.test`;
    let ada: { id: string; email: string };
    let username: string;

    before(async () => {
      const account = (email: string, createdAt: string, status: 'active' | 'suspended' = 'active') =>
        prisma.account.create({
          data: {
            email,
            passwordHash: 'unused',
            displayName: 'Ada L.',
            kind: 'full',
            status,
            createdAt: new Date(createdAt),
            ...(status === 'suspended' && { suspendedAt: new Date('2025-03-01T00:00:00Z') }),
          },
        });
      ada = await account(`ada@${domain}`, '2025-01-01T00:00:00Z', 'suspended');
      await account(`bob@${domain}`, '2025-02-01T00:00:00Z');
      const alice = await createPlayer(prisma, ada.id, 'Alice');
      const other = await createPlayer(prisma, ada.id, null);
      await prisma.sandboxPlayer.update({ where: { id: other.player.id }, data: { status: 'disabled' } });
      username = alice.username;
    });

    test('find-accounts: a table newest first, filtered, page by page', async () => {
      const all = await run(findAccountsCommand, { 'email-contains': `@${domain.toUpperCase()}` });
      const rows = lines(all.out);
      assert.match(rows[0] as string, /^CREATED\s+EMAIL\s+STATUS\s+KIND\s+ID$/);
      assert.match(rows[1] as string, new RegExp(`^2025-02-01T00:00:00\\.000Z  bob@${domain}  active\\s+full  `));
      assert.match(rows[2] as string, new RegExp(`ada@${domain}  suspended  full  ${ada.id}$`));
      assert.equal(rows[3], 'last page');
      const suspended = await run(findAccountsCommand, { 'email-contains': domain, status: 'suspended' });
      assert.equal(lines(suspended.out).length, 3);
      const created = await run(findAccountsCommand, {
        'email-contains': domain,
        since: '2025-01-15',
        until: '2025-03-01',
      });
      assert.match(lines(created.out)[1] as string, /bob@/);
      const page = await run(findAccountsCommand, { 'email-contains': domain, limit: '1' });
      const cursor = /--cursor (\S+)/.exec(page.out)?.[1] as string;
      const next = await run(findAccountsCommand, { 'email-contains': domain, limit: '1', cursor });
      assert.match(next.out, /ada@/);
      assert.match(next.out, /last page\n$/);
      const exact = await run(findAccountsCommand, { email: `ADA@${domain}` });
      assert.equal(lines(exact.out).length, 3);
      await assert.rejects(run(findAccountsCommand, { status: 'gone' }), refused('INVALID_INPUT', /active, suspended/));
    });

    test('show-account: by e-mail or id, with its apps and players counted', async () => {
      const { app } = await createTestApp(prisma);
      await prisma.app.update({ where: { id: app.id }, data: { accountId: ada.id } });
      for (const name of [ada.email.toUpperCase(), ada.id]) {
        const { out } = await run(showAccountCommand, {}, { account: name });
        assert.equal(
          out,
          [
            `account  ${ada.email}`,
            `id       ${ada.id}`,
            'name     Ada L.',
            'kind     full',
            'status   suspended since 2025-03-01T00:00:00.000Z',
            'created  2025-01-01T00:00:00.000Z',
            'apps     1 (1 active)',
            'players  2 (1 active, 1 disabled)',
            '',
          ].join('\n'),
        );
      }
      await assert.rejects(
        run(showAccountCommand, {}, { account: `nobody@${domain}` }),
        refused('ACCOUNT_NOT_FOUND', /no developer account has the e-mail nobody@/),
      );
    });

    test('find-players and show-player', async () => {
      const found = await run(findPlayersCommand, { account: ada.email });
      const rows = lines(found.out);
      assert.match(rows[0] as string, /^CREATED\s+USERNAME\s+STATUS\s+ACCOUNT\s+ID$/);
      assert.equal(rows.length, 4);
      assert.ok(rows.slice(1, 3).every((row) => row.includes(ada.email)));
      const disabled = await run(findPlayersCommand, { account: ada.email, status: 'disabled' });
      assert.equal(lines(disabled.out).length, 3);
      const byName = await run(findPlayersCommand, { 'username-prefix': username.slice(0, -2).toUpperCase() });
      assert.match(byName.out, new RegExp(`  ${username}  active  ${ada.email}  `));
      await assert.rejects(
        run(findPlayersCommand, { account: `nobody@${domain}` }),
        refused('ACCOUNT_NOT_FOUND', /nobody@/),
      );

      const alice = await prisma.sandboxPlayer.findUniqueOrThrow({ where: { username } });
      const { app } = await createTestApp(prisma);
      const consent = { appId: app.id, playerId: alice.id, scopes: ['profile.basic.read'], consentTextVersion: '1' };
      await prisma.consent.create({ data: consent });
      await prisma.consent.create({
        data: { ...consent, status: 'revoked', revokedAt: new Date(), revocationReason: 'player_withdrawal' },
      });
      const shown = await run(showPlayerCommand, {}, { player: username.toUpperCase() });
      const fields = Object.fromEntries(lines(shown.out).map((line) => line.split(/\s{2,}/)));
      assert.equal(fields.player, username);
      assert.equal(fields.name, 'Alice');
      assert.equal(fields.status, 'active');
      assert.equal(fields.account, `${ada.email} (${ada.id})`);
      assert.equal(fields.consents, '1 active');
      assert.equal((await run(showPlayerCommand, {}, { player: alice.id })).out, shown.out);
      await assert.rejects(
        run(showPlayerCommand, {}, { player: 'no-such-player' }),
        refused('PLAYER_NOT_FOUND', /no sandbox player has the username no-such-player/),
      );
    });
  });

  describe('apps', () => {
    let first: { app: { id: string; clientId: string }; developer: { email: string } };
    let second: { app: { id: string; clientId: string } };

    before(async () => {
      first = await createTestApp(prisma);
      second = await createTestApp(prisma);
      await prisma.app.update({ where: { id: first.app.id }, data: { name: 'Quest_Board' } });
      await prisma.app.update({ where: { id: second.app.id }, data: { name: 'QuestXBoard', status: 'suspended' } });
    });

    test('find-apps: by client id in any case, by developer e-mail, by name prefix literally, by status', async () => {
      const byId = await run(findAppsCommand, { 'client-id': first.app.clientId.toUpperCase() });
      assert.deepEqual(
        lines(byId.out)
          .slice(1, -1)
          .map((row) => row.split(/\s+/)[1]),
        [first.app.clientId],
      );
      const byEmail = await run(findAppsCommand, { email: first.developer.email.toUpperCase() });
      assert.match(byEmail.out, new RegExp(first.app.clientId));
      assert.doesNotMatch(byEmail.out, new RegExp(second.app.clientId));
      // _ is a letter here, not LIKE's any-character: "quest_" finds Quest_Board alone.
      const byName = await run(findAppsCommand, { name: 'quest_' });
      assert.match(byName.out, new RegExp(first.app.clientId));
      assert.doesNotMatch(byName.out, new RegExp(second.app.clientId));
      const suspended = await run(findAppsCommand, { status: 'suspended', name: 'quest' });
      assert.match(suspended.out, new RegExp(`${second.app.clientId}\\s+suspended\\s+QuestXBoard`));
      assert.doesNotMatch(suspended.out, new RegExp(first.app.clientId));
      const nobody = await run(findAppsCommand, { email: 'nobody@example.test' });
      assert.deepEqual(lines(nobody.out), ['no apps match', 'last page']);
    });

    test('find-apps pages newest first with no app twice', async () => {
      const seen: string[] = [];
      let cursor: string | undefined;
      for (let pageNumber = 0; pageNumber < 50; pageNumber++) {
        const page = await run(findAppsCommand, { limit: '1', ...(cursor && { cursor }) });
        const rows = lines(page.out);
        seen.push(...rows.slice(1, -1).map((row) => row.split(/\s+/)[1] as string));
        const next = rows.at(-1)?.match(/^next page: --cursor (\S+)$/);
        if (!next) break;
        cursor = next[1];
      }
      assert.equal(new Set(seen).size, seen.length);
      assert.ok(seen.indexOf(second.app.clientId) < seen.indexOf(first.app.clientId), 'newest first');
    });

    test('find-apps refuses an unknown status', async () => {
      await assert.rejects(
        run(findAppsCommand, { status: 'paused' }),
        refused('INVALID_INPUT', /status must be one of/),
      );
    });

    test('show-app: the developer, the secrets without a hash, the consents; an unknown client id is refused', async () => {
      const shown = await run(showAppCommand, {}, { client_id: second.app.clientId });
      assert.match(shown.out, /^status\s+suspended$/m);
      assert.match(shown.out, /^active consents\s+0$/m);
      const [secret] = await prisma.clientSecret.findMany({ where: { appId: second.app.id } });
      assert.match(shown.out, new RegExp(`^secrets\\s+${secret?.id} active created `, 'm'));
      assert.doesNotMatch(shown.out, new RegExp(secret?.hash as string));
      await assert.rejects(
        run(showAppCommand, {}, { client_id: 'svc_nosuchapp' }),
        refused('APP_NOT_FOUND', /no app has the client id svc_nosuchapp/),
      );
    });
  });

  describe('consents', () => {
    test("list-consents: an app's or a player's, newest granted first; exactly one of --app and --player", async () => {
      const { app, developer } = await createTestApp(prisma, { scopes: ['profile.basic.read'] });
      const player = await createPlayer(prisma, developer.id);
      const granted = await prisma.consent.create({
        data: { appId: app.id, playerId: player.player.id, scopes: ['profile.basic.read'], consentTextVersion: 'v1' },
      });
      const ofApp = await run(listConsentsCommand, { app: app.clientId });
      const [heading, row, last] = lines(ofApp.out);
      assert.match(heading as string, /^GRANTED\s+CONSENT\s+CLIENT ID\s+PLAYER\s+STATUS\s+ENDED$/);
      assert.match(row as string, new RegExp(`${granted.id}\\s+${app.clientId}\\s+${player.username}\\s+active$`));
      assert.equal(last, 'last page');
      const ofPlayer = await run(listConsentsCommand, { player: player.username, status: 'revoked' });
      assert.deepEqual(lines(ofPlayer.out), ['no consents', 'last page']);
      await assert.rejects(run(listConsentsCommand, {}), usage(/give --app or --player/));
      await assert.rejects(
        run(listConsentsCommand, { app: 'svc_nosuchapp' }),
        refused('APP_NOT_FOUND', /no app has the client id svc_nosuchapp/),
      );
    });
  });
});
