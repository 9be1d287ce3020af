// The admin command as an operator runs it: the real entry point as a child process, against the
// real PostgreSQL and Redis (DATABASE_URL, REDIS_URL), each test on data of its own (a database of
// its own for the janitor, a platform of its own for the account and player commands).
import assert from 'node:assert/strict';
import { createHash, createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { validateSigningKeys } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import { createTestApp } from '@devplat/test/apps';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from '@devplat/test/database';
import { assertProblem, call } from '@devplat/test/http';
import { authorizationRequest, basicAuth, redeemCode } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp, createPlayer } from '@devplat/test/players';
import { freePort, runProcess } from '@devplat/test/process';

const entryPoint = 'services/admin/src/main.ts';
const commandNames = [
  'generate-signing-key',
  'rotation-procedure',
  'create-token',
  'janitor',
  'audit',
  'find-accounts',
  'show-account',
  'suspend-account',
  'reactivate-account',
  'find-players',
  'show-player',
  'disable-player',
  'enable-player',
  'find-apps',
  'show-app',
  'suspend-app',
  'unsuspend-app',
  'list-consents',
  'end-consent',
  'end-app-consents',
  'end-player-consents',
];
const needsPostgres = { skip: realPostgresUrl ? false : 'needs DATABASE_URL (a real PostgreSQL)' };

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The parent's environment without the settings each test decides itself. */
function baseEnv(): Record<string, string | undefined> {
  const {
    DATABASE_URL: _database,
    REDIS_URL: _redis,
    REDIS_KEY_PREFIX: _prefix,
    ADMIN_OPERATOR: _operator,
    WEBHOOK_RETENTION_DAYS: _retention,
    ...rest
  } = process.env;
  return rest;
}

async function admin(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  const started = Date.now();
  const run = await runProcess(process.execPath, [entryPoint, ...args], { env: { ...baseEnv(), ...env } }).done;
  return { ...run, ms: Date.now() - started };
}

const lines = (text: string) => text.split('\n').filter((line) => line !== '');

/** One line on stderr, nothing on stdout, no stack trace. */
function assertOneLineError(run: Run, code: number, pattern: RegExp) {
  assert.equal(run.code, code, run.stderr);
  assert.equal(run.stdout, '');
  assert.equal(lines(run.stderr).length, 1, run.stderr);
  assert.match(run.stderr, pattern);
  assert.doesNotMatch(run.stderr, /\n\s+at /);
}

describe('help and usage', () => {
  test('admin help lists every command and exits 0; so does --help', async () => {
    for (const run of await Promise.all([admin(['help']), admin(['--help'])])) {
      assert.equal(run.code, 0, run.stderr);
      for (const name of commandNames) assert.match(run.stdout, new RegExp(`^  ${name} `, 'm'));
      assert.match(run.stdout, /Exit codes: 0 done/);
    }
  });

  test("each command's --help (and admin help <command>) prints its usage and exits 0", async () => {
    const asked = commandNames.flatMap((name) => [
      [name, '--help'],
      ['help', name],
      [name, '-h'],
    ]);
    const runs = await Promise.all(asked.map((args) => admin(args)));
    for (const [index, run] of runs.entries()) {
      const name = commandNames[Math.floor(index / 3)];
      assert.equal(run.code, 0, run.stderr);
      assert.ok(run.stdout.startsWith(`Usage: npm run -s admin -- ${name}`), run.stdout);
      assert.match(run.stdout, /^Options:$/m);
    }
  });

  test('an unknown command: one line with a suggestion, exit 64', async () => {
    assertOneLineError(await admin(['janitr']), 64, /^admin: unknown command "janitr"\. Did you mean "janitor"\?/);
    assertOneLineError(await admin(['suspend-acount']), 64, /Did you mean "suspend-account"\?/);
    assertOneLineError(await admin(['frobnicate']), 64, /^admin: unknown command "frobnicate"\. "admin help" lists/);
    assertOneLineError(await admin(['help', 'nope']), 64, /unknown command "nope"/);
  });

  test('no command prints the list on stderr, exit 64; an unknown option or a missing argument, exit 64', async () => {
    const none = await admin([]);
    assert.equal(none.code, 64);
    assert.match(none.stderr, /Commands:/);
    const option = await admin(['janitor', '--dry-runn']);
    assert.equal(option.code, 64);
    assert.match(option.stderr, /^admin janitor: unknown option --dry-runn\. Did you mean --dry-run\?\nUsage: /);
    const missing = await admin(['suspend-account', '--operator', 'ops']);
    assert.equal(missing.code, 64);
    assert.match(missing.stderr, /missing <email>/);
    const extra = await admin(['rotation-procedure', 'now']);
    assert.equal(extra.code, 64);
    assert.match(extra.stderr, /unexpected argument "now"/);
  });
});

describe('generate-signing-key and rotation-procedure', () => {
  test('generate-signing-key prints one private Ed25519 JWK whose kid is its RFC 7638 thumbprint', async () => {
    const run = await admin(['generate-signing-key']);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(lines(run.stdout).length, 1);
    const key = JSON.parse(run.stdout);
    assert.deepEqual(Object.keys(key).sort(), ['crv', 'd', 'kid', 'kty', 'x']);
    assert.equal(key.kty, 'OKP');
    assert.equal(key.crv, 'Ed25519');
    const thumbprint = createHash('sha256')
      .update(JSON.stringify({ crv: 'Ed25519', kty: 'OKP', x: key.x }))
      .digest('base64url');
    assert.equal(key.kid, thumbprint);
    // d is the private half of x.
    const publicOf = createPublicKey(createPrivateKey({ key, format: 'jwk' })).export({ format: 'jwk' });
    assert.equal(publicOf.x, key.x);
    const other = JSON.parse((await admin(['generate-signing-key'])).stdout);
    assert.notEqual(other.kid, key.kid);
  });

  test('--jwks prints a key set SIGNING_KEYS accepts', async () => {
    const run = await admin(['generate-signing-key', '--jwks']);
    assert.equal(run.code, 0, run.stderr);
    const set = JSON.parse(run.stdout);
    assert.equal(set.keys.length, 1);
    assert.doesNotThrow(() => validateSigningKeys(run.stdout.trim()));
  });

  test('rotation-procedure prints the four steps with their waits', async () => {
    const run = await admin(['rotation-procedure']);
    assert.equal(run.code, 0, run.stderr);
    const text = run.stdout;
    assert.match(text, /The FIRST key signs/);
    assert.match(text, /^1\. Generate a new key/m);
    assert.match(text, /^2\. Publish: deploy SIGNING_KEYS = \{"keys":\[old, new\]\}/m);
    assert.match(text, /^3\. Sign: deploy SIGNING_KEYS = \{"keys":\[new, old\]\}/m);
    assert.match(text, /^4\. Retire: once 300 s \(the access-token lifetime\)/m);
    assert.match(text, /SIGNING_KEYS = \{"keys":\[new\]\}/);
    assert.match(text, /at most once\s+per 30 s/);
    assert.match(text, /every 10 minutes/);
    assert.match(text, /refresh tokens and authorization codes are opaque/);
  });
});

describe('settings and an unreachable database', () => {
  test('without DATABASE_URL a command that needs it says so in one line and exits 78', async () => {
    for (const args of [['janitor'], ['suspend-account', 'a@example.test', '--operator', 'ops']]) {
      assertOneLineError(await admin(args), 78, /^configuration error: DATABASE_URL is required/);
    }
    assertOneLineError(
      await admin(['janitor'], { DATABASE_URL: 'mysql://db.example.test/platform' }),
      78,
      /^configuration error: DATABASE_URL must be a postgres: or postgresql: URL/,
    );
  });

  test('janitor against a closed port exits 69 within a few seconds, one line, no URL', async () => {
    const port = await freePort();
    const url = `postgresql://postgres:hunter2@127.0.0.1:${port}/platform`;
    const run = await admin(['janitor'], { DATABASE_URL: url });
    assertOneLineError(run, 69, /^admin janitor: PostgreSQL is unavailable/);
    assert.ok(run.ms < 5_000, `took ${run.ms} ms`);
    assert.doesNotMatch(run.stderr, /hunter2/);
  });

  test('a database that does not answer at all: exit 69 within the bound (DATABASE_TIMEOUT_MS)', async () => {
    // A listener that accepts connections and never says a word.
    const { createServer } = await import('node:net');
    const sockets: import('node:net').Socket[] = [];
    const silent = createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as { port: number };
    try {
      const run = await admin(['janitor', '--dry-run'], {
        DATABASE_URL: `postgresql://postgres@127.0.0.1:${port}/platform`,
        DATABASE_TIMEOUT_MS: '500',
      });
      assertOneLineError(run, 69, /^admin janitor: PostgreSQL is unavailable/);
      assert.ok(run.ms < 5_000, `took ${run.ms} ms`);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  });
});

describe('janitor', needsPostgres, () => {
  let database: TestDatabase;
  let prisma: PrismaClient;
  const env = () => ({ DATABASE_URL: database.url as string });
  const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 60 * 60 * 1000);
  const ids: Record<string, string> = {};

  before(async () => {
    database = await createTestDatabase({ seed: false });
    prisma = database.prisma;
    // 2,503 revoked token ids past their expiry (three batches) and two still running.
    await prisma.$executeRaw`
      INSERT INTO revoked_tokens (jti, expires_at)
      SELECT 'expired-' || n, now() - interval '1 minute' FROM generate_series(1, 2503) AS n`;
    await prisma.revokedToken.createMany({
      data: ['live-1', 'live-2'].map((jti) => ({ jti, expiresAt: new Date(Date.now() + 300_000) })),
    });
    const { app } = await createTestApp(prisma);
    const event = async (name: string, enqueuedDaysAgo: number | null) => {
      const created = await prisma.outboxEvent.create({
        data: {
          type: 'consent.granted',
          appId: app.id,
          payload: {},
          createdAt: daysAgo(enqueuedDaysAgo ?? 40),
          enqueuedAt: enqueuedDaysAgo === null ? null : daysAgo(enqueuedDaysAgo),
        },
      });
      ids[name] = created.id;
      return created.id;
    };
    const delivery = async (name: string, eventId: string, status: 'pending' | 'succeeded' | 'failed', ago: number) => {
      const created = await prisma.webhookDelivery.create({
        data: {
          eventId,
          appId: app.id,
          url: 'https://hooks.example.test/',
          status,
          createdAt: daysAgo(ago + 1),
          nextAttemptAt: daysAgo(ago),
          deliveredAt: status === 'succeeded' ? daysAgo(ago) : null,
        },
      });
      ids[name] = created.id;
    };
    // With the default retention of 30 days:
    await delivery('d1', await event('e1', 40), 'succeeded', 40); // both go
    const e2 = await event('e2', 40);
    await delivery('d2a', e2, 'succeeded', 40); // goes
    await delivery('d2b', e2, 'failed', 10); // stays (replayable), and so does e2
    await event('e3', 40); // never had a delivery: goes
    await delivery('d4', await event('e4', 40), 'pending', 40); // a pending delivery: both stay
    await delivery('d5', await event('e5', 1), 'succeeded', 1); // recent: both stay
    await event('e6', null); // not enqueued yet: stays
    await delivery('d7', await event('e7', 40), 'failed', 40); // failed 40 days ago: both go
  });
  after(() => database?.drop());

  const counts = (stdout: string) =>
    Object.fromEntries([...stdout.matchAll(/^([a-z-]+): (\d+) /gm)].map((match) => [match[1], Number(match[2])]));

  async function remaining() {
    const events = await prisma.outboxEvent.findMany({ select: { id: true } });
    const deliveries = await prisma.webhookDelivery.findMany({ select: { id: true } });
    const name = (id: string) => Object.entries(ids).find(([, value]) => value === id)?.[0];
    return {
      revoked: await prisma.revokedToken.count(),
      events: events.map((row) => name(row.id)).sort(),
      deliveries: deliveries.map((row) => name(row.id)).sort(),
    };
  }

  test('--dry-run counts what would go and deletes nothing', async () => {
    const before = await remaining();
    const run = await admin(['janitor', '--dry-run'], env());
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^janitor: retention 30 days \(the default\); dry run/);
    assert.deepEqual(counts(run.stdout), { 'revoked-tokens': 2503, 'webhook-deliveries': 3, 'outbox-events': 3 });
    assert.match(run.stdout, /^sessions: none in PostgreSQL .*Redis expires them itself/m);
    assert.deepEqual(await remaining(), before);
  });

  test('deletes, in batches, exactly what has expired, and prints the counts; a second run finds nothing', async () => {
    const run = await admin(['janitor'], env());
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(counts(run.stdout), { 'revoked-tokens': 2503, 'webhook-deliveries': 3, 'outbox-events': 3 });
    assert.deepEqual(await remaining(), {
      revoked: 2,
      events: ['e2', 'e4', 'e5', 'e6'],
      deliveries: ['d2b', 'd4', 'd5'],
    });
    const again = await admin(['janitor'], env());
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(counts(again.stdout), { 'revoked-tokens': 0, 'webhook-deliveries': 0, 'outbox-events': 0 });
  });

  test('the retention comes from --retention-days, else WEBHOOK_RETENTION_DAYS; a dry run counts an event whose deliveries would all go', async () => {
    const dry = await admin(['janitor', '--dry-run', '--retention-days', '5'], env());
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, /^janitor: retention 5 days \(--retention-days\)/);
    assert.deepEqual(counts(dry.stdout), { 'revoked-tokens': 0, 'webhook-deliveries': 1, 'outbox-events': 1 });
    const run = await admin(['janitor'], { ...env(), WEBHOOK_RETENTION_DAYS: '5' });
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /^janitor: retention 5 days \(WEBHOOK_RETENTION_DAYS\)/);
    assert.deepEqual(counts(run.stdout), { 'revoked-tokens': 0, 'webhook-deliveries': 1, 'outbox-events': 1 });
    assert.deepEqual(await remaining(), { revoked: 2, events: ['e4', 'e5', 'e6'], deliveries: ['d4', 'd5'] });
    assertOneLineError(
      await admin(['janitor'], { ...env(), WEBHOOK_RETENTION_DAYS: 'ever' }),
      78,
      /^configuration error: WEBHOOK_RETENTION_DAYS must be an integer/,
    );
    const zero = await admin(['janitor', '--retention-days', '0'], env());
    assert.equal(zero.code, 64);
  });
});

describe('accounts and players on a running platform', needsPostgres, () => {
  let platform: TestPlatform;
  const prefix = `devplat-test:${randomUUID()}:`;
  const redirectUri = 'http://127.0.0.1:9/callback';
  const prisma = () => platform.database.prisma;
  // The admin command reaches the platform's own database and Redis keys.
  const env = () => ({
    DATABASE_URL: platform.database.url as string,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: prefix } : {}),
  });

  before(async () => {
    platform = await startTestPlatform({ REDIS_KEY_PREFIX: prefix });
  });
  after(() => platform?.close());

  const appToken = (clientId: string, clientSecret: string) =>
    call(platform.base, '/oauth/token', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(clientId, clientSecret),
      },
      body: 'grant_type=client_credentials',
    });
  const get = (path: string, token: string) =>
    call(platform.base, path, { headers: { authorization: `Bearer ${token}` } });
  /** The audit records of a target, oldest first, with what the test checks of them. */
  const records = async (targetId: string) =>
    (await prisma().auditRecord.findMany({ where: { targetId }, orderBy: { createdAt: 'asc' } })).map(
      ({ actorType, actorId, action, targetType, details }) => ({ actorType, actorId, action, targetType, details }),
    );

  test("suspend-account: the app's token is refused at /cities on the very next call, and works again after reactivate-account", async () => {
    const app = await createTestApp(prisma());
    const email = app.developer.email;
    const token = (await appToken(app.clientId, app.clientSecret)).json.access_token as string;
    assert.equal((await get('/cities?limit=100', token)).status, 200);

    const suspended = await admin(
      ['suspend-account', email, '--operator', 'ops-alice', '--reason', 'ticket 42'],
      env(),
    );
    assert.equal(suspended.code, 0, suspended.stderr);
    assert.equal(suspended.stdout, `account ${email} (${app.developer.id}, 1 app): suspended\n`);
    assertProblem(await get('/cities?limit=100', token), 401, 'INVALID_TOKEN');
    if (process.env.REDIS_URL) {
      // The token endpoint's cached app was told through Redis: no new token either.
      const refused = await appToken(app.clientId, app.clientSecret);
      assert.equal(refused.status, 401, refused.text);
      assert.equal(refused.json.error, 'invalid_client');
    }
    const suspension = {
      actorType: 'operator',
      actorId: 'ops-alice',
      action: 'account.suspend',
      targetType: 'account',
      details: { email, reason: 'ticket 42' },
    };
    assert.deepEqual(await records(app.developer.id), [suspension]);

    // The e-mail in any case (the console keeps it in lower case).
    const again = await admin(['suspend-account', email.toUpperCase(), '--operator', 'ops-alice'], env());
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already suspended, nothing changed/);
    assert.equal((await records(app.developer.id)).length, 1);

    const reactivated = await admin(['reactivate-account', email], { ...env(), ADMIN_OPERATOR: 'ops-bob' });
    assert.equal(reactivated.code, 0, reactivated.stderr);
    assert.match(reactivated.stdout, /: reactivated\n$/);
    assert.equal((await get('/cities?limit=100', token)).status, 200);
    const fresh = await appToken(app.clientId, app.clientSecret);
    assert.equal(fresh.status, 200, fresh.text);
    assert.equal((await get('/cities?limit=100', fresh.json.access_token)).status, 200);
    const reactivation = {
      ...suspension,
      actorId: 'ops-bob',
      action: 'account.reactivate',
      details: { email, reason: null },
    };
    assert.deepEqual(await records(app.developer.id), [suspension, reactivation]);

    const twice = await admin(['reactivate-account', email, '--operator', 'ops-bob'], env());
    assert.equal(twice.code, 0, twice.stderr);
    assert.match(twice.stdout, /already active, nothing changed/);
    assert.equal((await records(app.developer.id)).length, 2);
  });

  test('an account command without an operator, or for an unknown e-mail, changes nothing', async () => {
    const app = await createTestApp(prisma());
    const anonymous = await admin(['suspend-account', app.developer.email], env());
    assert.equal(anonymous.code, 64);
    assert.match(anonymous.stderr, /--operator <name> \(or ADMIN_OPERATOR\) is required/);
    assertOneLineError(
      await admin(['suspend-account', 'nobody@developer.test', '--operator', 'ops'], env()),
      65,
      /no developer account has the e-mail nobody@developer\.test/,
    );
    const account = await prisma().account.findUniqueOrThrow({ where: { id: app.developer.id } });
    assert.equal(account.status, 'active');
    assert.equal((await records(app.developer.id)).length, 0);
  });

  test('with Redis unreachable, suspend-account exits 69 and suspends nothing (the bump comes first)', async () => {
    const app = await createTestApp(prisma());
    const run = await admin(['suspend-account', app.developer.email, '--operator', 'ops'], {
      ...env(),
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      REDIS_TIMEOUT_MS: '200',
    });
    assertOneLineError(run, 69, /^admin suspend-account: Redis is unavailable/);
    const account = await prisma().account.findUniqueOrThrow({ where: { id: app.developer.id } });
    assert.equal(account.status, 'active');
    assert.equal((await records(app.developer.id)).length, 0);
  });

  test("disable-player: the player's token gets 403 ACCESS_DENIED on /me at the very next call; enable-player admits it again", async () => {
    const app = await createTestApp(prisma(), {
      scopes: ['city.public.read', 'profile.basic.read'],
      redirectUris: [redirectUri],
    });
    const player = await createPlayer(prisma(), app.developer.id);
    const request = await authorizationRequest(platform.base, app.clientId, redirectUri, 'profile.basic.read');
    const callback = await consentOverHttp(request.url, player);
    const tokens = await redeemCode(platform.base, app, callback, redirectUri, request.state, request.verifier);
    assert.equal((await get('/me', tokens.accessToken)).status, 200);

    const email = app.developer.email;
    const options = ['--account', email, '--operator', 'ops-carol'];
    const disabled = await admin(['disable-player', player.username, ...options, '--reason', 'reported'], env());
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.equal(disabled.stdout, `sandbox player ${player.username} (${player.player.id}) of ${email}: disabled\n`);
    assertProblem(await get('/me', tokens.accessToken), 403, 'ACCESS_DENIED');
    const disabling = {
      actorType: 'operator',
      actorId: 'ops-carol',
      action: 'player.disable',
      targetType: 'sandbox_player',
      details: { username: player.username, account_email: email, reason: 'reported' },
    };
    assert.deepEqual(await records(player.player.id), [disabling]);

    const again = await admin(['disable-player', player.username, ...options], env());
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /already disabled, nothing changed/);
    assert.equal((await records(player.player.id)).length, 1);

    const enabled = await admin(['enable-player', player.username, ...options], env());
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.match(enabled.stdout, /: active\n$/);
    assert.equal((await get('/me', tokens.accessToken)).status, 200);
    const enabling = { ...disabling, action: 'player.enable', details: { ...disabling.details, reason: null } };
    const twice = await admin(['enable-player', player.username, ...options], env());
    assert.match(twice.stdout, /already active, nothing changed/);
    assert.deepEqual(await records(player.player.id), [disabling, enabling]);
  });

  test("a player named with another account's e-mail, or without --account, is not touched", async () => {
    const app = await createTestApp(prisma());
    const other = await createTestApp(prisma());
    const player = await createPlayer(prisma(), app.developer.id);
    assertOneLineError(
      await admin(['disable-player', player.username, '--account', other.developer.email, '--operator', 'ops'], env()),
      65,
      new RegExp(`the account ${other.developer.email} has no sandbox player ${player.username}`),
    );
    const bare = await admin(['disable-player', player.username, '--operator', 'ops'], env());
    assert.equal(bare.code, 64);
    assert.match(bare.stderr, /--account <email> is required/);
    const row = await prisma().sandboxPlayer.findUniqueOrThrow({ where: { id: player.player.id } });
    assert.equal(row.status, 'active');
  });
});
