// The operator's commands on one app and on consents (suspend-app, unsuspend-app, end-consent,
// end-app-consents, end-player-consents) as an operator runs them: the real entry point as a child
// process against a running platform's PostgreSQL and Redis, each checked by what the app and its
// players meet on their next call.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createTestApp } from '@devplat/test/apps';
import { allowOverHttp, refresh } from '@devplat/test/connected-apps';
import { realPostgresUrl } from '@devplat/test/database';
import { assertProblem, call } from '@devplat/test/http';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';
import { runProcess } from '@devplat/test/process';

const entryPoint = 'services/admin/src/main.ts';
const commandNames = ['suspend-app', 'unsuspend-app', 'end-consent', 'end-app-consents', 'end-player-consents'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The parent's environment without the settings each test decides itself. */
function baseEnv(): Record<string, string | undefined> {
  const {
    DATABASE_URL: _database,
    REDIS_URL: _redis,
    REDIS_KEY_PREFIX: _prefix,
    ADMIN_OPERATOR: _operator,
    PAIRWISE_SECRET: _pairwise,
    ...rest
  } = process.env;
  return rest;
}

function admin(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
  return runProcess(process.execPath, [entryPoint, ...args], { env: { ...baseEnv(), ...env } }).done;
}

test('admin help lists the commands, and each has its own help', async () => {
  const list = await admin(['help']);
  assert.equal(list.code, 0, list.stderr);
  for (const name of commandNames) {
    assert.match(list.stdout, new RegExp(`^  ${name} `, 'm'));
    const help = await admin([name, '--help']);
    assert.equal(help.code, 0, help.stderr);
    assert.ok(help.stdout.startsWith(`Usage: npm run -s admin -- ${name} <`), help.stdout);
    assert.match(help.stdout, /--operator <name>/);
  }
});

describe('on a running platform', { skip: realPostgresUrl ? false : 'needs DATABASE_URL (a real PostgreSQL)' }, () => {
  let platform: TestPlatform;
  const prefix = `devplat-test:${randomUUID()}:`;
  const pairwiseSecret = randomBytes(32).toString('base64url');
  const redirectUri = 'http://127.0.0.1:9/callback';
  const prisma = () => platform.database.prisma;
  // The admin command reaches the platform's own database, Redis keys and pairwise secret.
  const env = () => ({
    DATABASE_URL: platform.database.url as string,
    PAIRWISE_SECRET: pairwiseSecret,
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: prefix } : {}),
  });

  before(async () => {
    platform = await startTestPlatform({ REDIS_KEY_PREFIX: prefix, PAIRWISE_SECRET: pairwiseSecret });
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
  const records = async (targetId: string, action: string) =>
    prisma().auditRecord.findMany({ where: { targetId, action }, orderBy: { createdAt: 'asc' } });

  /** An app a player allowed, with the player's tokens. */
  async function allowedApp() {
    const app = await createTestApp(prisma(), {
      scopes: ['city.public.read', 'profile.basic.read'],
      redirectUris: [redirectUri],
    });
    const player = await createPlayer(prisma(), app.developer.id);
    const tokens = await allowOverHttp(platform.base, app, player);
    return { ...app, player, tokens };
  }

  test('suspend-app: the app is refused on its next call, the developer keeps its consents; unsuspend-app lets it work again', async () => {
    const app = await allowedApp();
    const appAccess = (await appToken(app.clientId, app.clientSecret)).json.access_token as string;
    assert.equal((await get('/cities?limit=100', appAccess)).status, 200);

    const options = ['--operator', 'ops-alice', '--reason', 'ticket 42'];
    const suspended = await admin(['suspend-app', app.clientId, ...options], env());
    assert.equal(suspended.code, 0, suspended.stderr);
    assert.equal(suspended.stdout, `app ${app.clientId} ("Test App", account ${app.developer.email}): suspended\n`);
    assertProblem(await get('/cities?limit=100', appAccess), 401, 'INVALID_TOKEN');
    assertProblem(await get('/me', app.tokens.accessToken), 401, 'INVALID_TOKEN');
    if (process.env.REDIS_URL) {
      const refused = await appToken(app.clientId, app.clientSecret);
      assert.equal(refused.status, 401, refused.text);
      assert.equal(refused.json.error, 'invalid_client');
    }
    const [record, ...more] = await records(app.app.id, 'app.suspend');
    assert.deepEqual(more, []);
    assert.equal(record?.actorId, 'ops-alice');
    assert.deepEqual(record?.details, { client_id: app.clientId, reason: 'ticket 42' });

    const again = await admin(['suspend-app', app.clientId, '--operator', 'ops-alice'], env());
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /: already suspended, nothing changed\n$/);
    assert.equal((await records(app.app.id, 'app.suspend')).length, 1);

    const lifted = await admin(['unsuspend-app', app.clientId], { ...env(), ADMIN_OPERATOR: 'ops-bob' });
    assert.equal(lifted.code, 0, lifted.stderr);
    assert.match(lifted.stdout, /: unsuspended, now active\n$/);
    assert.equal((await get('/cities?limit=100', appAccess)).status, 200);
    assert.equal((await get('/me', app.tokens.accessToken)).status, 200, 'its consent paused, it did not end');
    const twice = await admin(['unsuspend-app', app.clientId, '--operator', 'ops-bob'], env());
    assert.match(twice.stdout, /: not suspended \(active\), nothing changed\n$/);
    assert.equal((await records(app.app.id, 'app.unsuspend')).length, 1);
  });

  test('an app unknown or deleted: one line, exit 65', async () => {
    const unknown = await admin(['suspend-app', 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaa', '--operator', 'ops'], env());
    assert.equal(unknown.code, 65);
    assert.equal(unknown.stderr, 'admin suspend-app: no app has the client id svc_aaaaaaaaaaaaaaaaaaaaaaaaaa\n');
    const { app, clientId } = await createTestApp(prisma());
    await prisma().app.update({ where: { id: app.id }, data: { status: 'deleted', deletedAt: new Date() } });
    const deleted = await admin(['end-app-consents', clientId, '--operator', 'ops'], env());
    assert.equal(deleted.code, 65);
    assert.match(deleted.stderr, /was deleted by its developer/);
  });

  test('end-consent: /me answers 403 CONSENT_REVOKED and the refresh token is refused; a second run ends nothing', async () => {
    const app = await allowedApp();
    assert.equal((await get('/me', app.tokens.accessToken)).status, 200);
    const consentId = app.tokens.consentId;

    const run = await admin(['end-consent', consentId, '--operator', 'ops-carol', '--reason', 'reported'], env());
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `consent ${consentId} (app ${app.clientId}, player ${app.player.player.id}): ended\n`);
    assertProblem(await get('/me', app.tokens.accessToken), 403, 'CONSENT_REVOKED');
    const refused = await refresh(platform.base, app, app.tokens.refreshToken);
    assert.equal(refused.status, 400, refused.text);
    assert.equal(refused.json.error, 'invalid_grant');
    const [event, ...more] = await prisma().outboxEvent.findMany({
      where: { appId: app.app.id, type: 'consent.revoked' },
    });
    assert.deepEqual(more, []);
    const payload = event?.payload as { consent_id: string; reason: string };
    assert.equal(payload.consent_id, consentId);
    assert.equal(payload.reason, 'operator_revocation');
    const [record] = await records(consentId, 'consent.end');
    assert.deepEqual(record?.details, { client_id: app.clientId, player_id: app.player.player.id, reason: 'reported' });

    const again = await admin(['end-consent', consentId, '--operator', 'ops-carol'], env());
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /: already ended \(operator_revocation\), nothing changed\n$/);
    assert.equal((await records(consentId, 'consent.end')).length, 1);
  });

  test('end-consent needs PAIRWISE_SECRET (exit 78) and a consent that exists (exit 65)', async () => {
    const { PAIRWISE_SECRET: _secret, ...withoutSecret } = env();
    const missing = await admin(['end-consent', randomUUID(), '--operator', 'ops'], withoutSecret);
    assert.equal(missing.code, 78);
    assert.match(missing.stderr, /^configuration error: PAIRWISE_SECRET is required/);
    const short = await admin(['end-consent', randomUUID(), '--operator', 'ops'], {
      ...env(),
      PAIRWISE_SECRET: 'short',
    });
    assert.equal(short.code, 78);
    assert.match(short.stderr, /PAIRWISE_SECRET must be at least 32 characters/);
    const id = randomUUID();
    const unknown = await admin(['end-consent', id, '--operator', 'ops'], env());
    assert.equal(unknown.code, 65);
    assert.equal(unknown.stderr, `admin end-consent: no consent has the id ${id}\n`);
  });

  test("end-app-consents ends every player's consent with the app, and says the app is still active", async () => {
    const app = await allowedApp();
    const second = await createPlayer(prisma(), app.developer.id);
    const secondTokens = await allowOverHttp(platform.base, app, second);

    const run = await admin(['end-app-consents', app.clientId, '--operator', 'ops-dan'], env());
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `app ${app.clientId} ("Test App"): 2 consents ended (1 transaction)\n`);
    assert.match(run.stderr, /^note: the app is active: players may allow it again/);
    assertProblem(await get('/me', app.tokens.accessToken), 403, 'CONSENT_REVOKED');
    assertProblem(await get('/me', secondTokens.accessToken), 403, 'CONSENT_REVOKED');
    const [record] = await records(app.app.id, 'app.consents_end');
    assert.equal((record?.details as { consents_ended?: number } | undefined)?.consents_ended, 2);

    const again = await admin(['end-app-consents', app.clientId, '--operator', 'ops-dan'], env());
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, `app ${app.clientId} ("Test App"): no active consent, nothing changed\n`);
    assert.equal((await records(app.app.id, 'app.consents_end')).length, 1);
  });

  test("end-player-consents takes a username or an id, and ends the player's consents with every app", async () => {
    const first = await allowedApp();
    const other = await createTestApp(prisma(), { scopes: ['profile.basic.read'], redirectUris: [redirectUri] });
    const otherTokens = await allowOverHttp(platform.base, other, first.player, 'profile.basic.read');
    const { username, player } = first.player;

    const run = await admin(['end-player-consents', username, '--operator', 'ops-eve'], env());
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `sandbox player ${username} (${player.id}): 2 consents ended (1 transaction)\n`);
    assertProblem(await get('/me', first.tokens.accessToken), 403, 'CONSENT_REVOKED');
    assertProblem(await get('/me', otherTokens.accessToken), 403, 'CONSENT_REVOKED');

    const byId = await admin(['end-player-consents', player.id, '--operator', 'ops-eve'], env());
    assert.equal(byId.code, 0, byId.stderr);
    assert.equal(byId.stdout, `sandbox player ${username} (${player.id}): no active consent, nothing changed\n`);
    assert.deepEqual(
      (await records(player.id, 'player.consents_end')).map((record) => record.appId).toSorted(),
      [first.app.id, other.app.id].toSorted(),
      'one record for each app, made by the first run alone',
    );

    const nobody = await admin(['end-player-consents', 'nobody-here', '--operator', 'ops-eve'], env());
    assert.equal(nobody.code, 65);
    assert.match(nobody.stderr, /no sandbox player has the username nobody-here/);
  });
});
