// An operator stops an abusive app and ends a player's consents through the admin API, end to end:
// the real admin process (services/admin/src/serve.ts) beside a started platform, on the same
// PostgreSQL database and Redis keys, checked by what the app, its developer and its webhook
// endpoint meet; then the operator finds what was done in the audit log, as a page and as a JSON
// Lines export. Every admin answer is checked against the admin API's OpenAPI document.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { adminCall, operatorTokensFile, type RunningAdminApi, startAdminApi } from '@devplat/test/admin-api';
import { consoleCall, type Developer, registerDeveloper } from '@devplat/test/console-api';
import { realPostgresUrl } from '@devplat/test/database';
import { assertProblem, call } from '@devplat/test/http';
import { basicAuth, type UserTokens } from '@devplat/test/oauth';
import { connectedApp as connectedAppOf } from '@devplat/test/operator-fixtures';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { answer, eventually, startWebhookReceiver, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import { operatorToken } from '../../services/admin/src/create-token.ts';

const redisUrl = process.env.REDIS_URL?.trim() || null;
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';

const prefix = `devplat-test:${randomUUID()}:`;
const pairwiseSecret = randomBytes(32).toString('base64url');
const scratch = mkdtempSync(join(tmpdir(), 'devplat-admin-operations-'));
const tokens = operatorTokensFile(join(scratch, 'admin-tokens'));
const alice = operatorToken('ops-alice', 'write').token;
const bob = operatorToken('ops-bob', 'read').token;
let platform: TestPlatform;
let receiver: WebhookReceiver;
let developer: Developer;
let admin: RunningAdminApi;

/** The admin process on the platform's stores, with `env` besides. */
const adminProcess = (env: Record<string, string> = {}) =>
  startAdminApi({
    DATABASE_URL: platform.database.url as string,
    REDIS_URL: redisUrl as string,
    REDIS_KEY_PREFIX: prefix,
    ADMIN_TOKENS_FILE: tokens.file,
    ...env,
  });

before(async () => {
  if (skip) return;
  tokens.add('ops-alice', 'write', alice);
  tokens.add('ops-bob', 'read', bob);
  platform = await startTestPlatform({
    REDIS_KEY_PREFIX: prefix,
    PAIRWISE_SECRET: pairwiseSecret,
    WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_BACKOFF_BASE_MS: '50',
    USAGE_COUNT_FLUSH_MS: '50',
    USAGE_LAST_USED_FLUSH_MS: '50',
  });
  receiver = await startWebhookReceiver(answer(204));
  developer = await registerDeveloper(platform.console);
  admin = await adminProcess({ PAIRWISE_SECRET: pairwiseSecret });
});
after(async () => {
  await admin?.process.stop();
  await receiver?.close();
  await platform?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const operator = (method: string, path: string, token: string, body?: unknown) =>
  adminCall(admin.url, method, path, { token, ...(body !== undefined && { body }) });

const developerApi = (method: string, path: string, body?: unknown) =>
  consoleCall(platform.console, method, path, { token: developer.token, body });

const get = (path: string, user: UserTokens) =>
  call(platform.base, path, { headers: { authorization: `Bearer ${user.accessToken}` } });

type AuditLine = {
  action: string;
  actor_type: string;
  actor_id: string;
  target_id: string;
  details: Record<string, unknown>;
};

const connectedApp = (name: string) =>
  connectedAppOf({ base: platform.base, console: platform.console, developer, receiver }, name);

test("an operator suspends an app in use and ends a player's consents; the app, its developer and its webhook see it; the audit log shows both", {
  skip,
}, async () => {
  const { app, player, user, events, granted } = await connectedApp('Abusive App');
  assert.equal((await get('/cities?limit=100', user)).status, 200);
  const started = new Date(Date.now() - 1_000).toISOString();

  // A read token may not change anything.
  const denied = await operator('POST', `/apps/${app.clientId}/suspend`, bob, { reason: 'x' });
  assertProblem(denied, 403, 'ACCESS_DENIED');
  assertProblem(await operator('POST', `/players/${player.username}/consents/end`, bob), 403, 'ACCESS_DENIED');
  assert.equal((await get('/cities?limit=100', user)).status, 200, 'still working');

  // Suspended: the very next call with the user token is refused, and its developer cannot enable it.
  const suspended = await operator('POST', `/apps/${app.clientId}/suspend`, alice, { reason: 'abuse report 17' });
  assert.equal(suspended.status, 200);
  assert.deepEqual(
    [suspended.json.changed, suspended.json.app.client_id, suspended.json.app.status, suspended.json.app.account.email],
    [true, app.clientId, 'suspended', developer.email],
  );
  assertProblem(await get('/cities?limit=100', user), 401, 'INVALID_TOKEN');
  const enable = await developerApi('POST', `/apps/${app.clientId}/enable`);
  assert.equal(enable.status, 409, enable.text);
  assert.equal(enable.json.code, 'APP_DISABLED');
  assert.match(enable.json.detail, /suspended by the platform/);
  const again = await operator('POST', `/apps/${app.clientId}/suspend`, alice);
  assert.deepEqual([again.status, again.json.changed, again.json.app.status], [200, false, 'suspended']);

  // Lifted: the same token works again (its consent was only paused).
  const lifted = await operator('POST', `/apps/${app.clientId}/unsuspend`, alice);
  assert.deepEqual([lifted.json.changed, lifted.json.app.status, lifted.json.app.suspended_at], [true, 'active', null]);
  assert.equal((await get('/cities?limit=100', user)).status, 200);

  // The player's consents end: /me refuses, and the app is told, with the player's pairwise subject.
  const ended = await operator('POST', `/players/${player.username}/consents/end`, alice, { reason: 'ticket 9' });
  assert.deepEqual(ended.json, { ended: 1, batches: 1 });
  assertProblem(await get('/me', user), 403, 'CONSENT_REVOKED');
  const revoked = await eventually(() => events().find((event) => event.type === 'consent.revoked'));
  assert.equal(revoked.data.reason, 'operator_revocation');
  assert.equal(revoked.data.consent_id, user.consentId);
  assert.equal(revoked.data.sub, granted.data.sub, "the player's pairwise subject for the app");
  assert.deepEqual((await operator('POST', `/players/${player.username}/consents/end`, alice)).json, {
    ended: 0,
    batches: 0,
  });
  const one = await operator('POST', `/consents/${user.consentId}/end`, alice);
  assert.deepEqual(
    [one.json.ended, one.json.consent.status, one.json.consent.revocation_reason, one.json.consent.client_id],
    [0, 'revoked', 'operator_revocation', app.clientId],
  );

  // The operator finds both actions, newest first, each once, naming the operator and the reason.
  const page = await operator('GET', `/audit?actor=ops-alice&since=${encodeURIComponent(started)}`, bob);
  assert.equal(page.status, 200);
  const mine = (page.json.data as AuditLine[]).filter(
    (record) => record.details.client_id === app.clientId || record.details.username === player.username,
  );
  assert.deepEqual(
    mine.map((record) => [record.action, record.actor_type, record.actor_id, record.details.reason]),
    [
      ['player.consents_end', 'operator', 'ops-alice', 'ticket 9'],
      ['app.unsuspend', 'operator', 'ops-alice', null],
      ['app.suspend', 'operator', 'ops-alice', 'abuse report 17'],
    ],
  );
  const ofApp = await operator('GET', `/audit?target=app:${app.clientId}&action=app.`, bob);
  assert.deepEqual(
    (ofApp.json.data as AuditLine[]).map((record) => record.action),
    ['app.unsuspend', 'app.suspend', 'app.create'],
  );
  // A page at a time: the cursor gives the rest, and nothing twice.
  const first = await operator('GET', `/audit?target=app:${app.clientId}&limit=2`, bob);
  assert.equal(first.json.data.length, 2);
  assert.ok(first.json.next_cursor);
  const second = await operator(
    'GET',
    `/audit?target=app:${app.clientId}&limit=2&cursor=${encodeURIComponent(first.json.next_cursor)}`,
    bob,
  );
  assert.deepEqual(
    [...first.json.data, ...second.json.data].map((record: AuditLine) => record.action),
    ofApp.json.data.map((record: AuditLine) => record.action),
  );

  // The same, exported as JSON Lines, oldest first.
  const until = new Date(Date.now() + 1_000).toISOString();
  const exported = await operator(
    'GET',
    `/audit/export?actor=ops-alice&since=${encodeURIComponent(started)}&until=${encodeURIComponent(until)}`,
    bob,
  );
  assert.equal(exported.status, 200);
  assert.equal(exported.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
  assert.ok(exported.text.endsWith('\n'));
  const lines = exported.text
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line) as AuditLine)
    .filter((record) => record.details.client_id === app.clientId || record.details.username === player.username);
  assert.deepEqual(
    lines.map((record) => record.action),
    ['app.suspend', 'app.unsuspend', 'player.consents_end'],
  );
  assert.deepEqual(lines, [...mine].reverse(), 'the export holds the records as the page shows them');
});

test('what an operator gets wrong is a Problem that says what, never a 500, and changes nothing', {
  skip,
}, async () => {
  const cases: [string, number, string, RegExp][] = [
    ['/audit?page=2', 400, 'INVALID_REQUEST', /Unknown query parameter "page"/],
    ['/audit?cursor=not-a-cursor', 400, 'INVALID_REQUEST', /cursor is not one this listing gave/],
    ['/audit?since=yesterday', 400, 'INVALID_REQUEST', /since must be an ISO 8601 time/],
    ['/audit?since=2026-01-02&until=2026-01-01', 400, 'INVALID_REQUEST', /until must be after since/],
    ['/audit?target=planet', 400, 'INVALID_REQUEST', /unknown target type "planet"/],
    ['/audit?limit=0', 400, 'INVALID_REQUEST', /limit must be an integer from 1 to 200/],
    ['/audit?limit=many', 400, 'INVALID_REQUEST', /limit must be a whole number/],
    ['/audit?action=app.&action=player.', 400, 'INVALID_REQUEST', /action is given twice/],
    ['/audit?target=account:nobody@developer.test', 404, 'NOT_FOUND', /no developer account has the e-mail/i],
    ['/audit/export?since=2026-01-01', 400, 'INVALID_REQUEST', /give both since and until/],
    [
      '/audit/export?since=2026-01-01&until=2026-02-01&limit=5',
      400,
      'INVALID_REQUEST',
      /Unknown query parameter "limit"/,
    ],
  ];
  for (const [path, status, code, detail] of cases) {
    const answered = await operator('GET', path, bob);
    assertProblem(answered, status, code);
    assert.match(answered.json.detail, detail, path);
  }
  for (const path of [
    '/apps/svc_nosuchappatall/suspend',
    '/apps/svc_nosuchappatall/unsuspend',
    '/apps/svc_nosuchappatall/consents/end',
    `/consents/${randomUUID()}/end`,
    '/consents/not-a-consent/end',
    '/players/nobody-at-all/consents/end',
  ]) {
    assertProblem(await operator('POST', path, alice), 404, 'NOT_FOUND');
  }
  const unknownMember = await operator('POST', '/apps/svc_nosuchappatall/suspend', alice, { why: 'x' });
  assertProblem(unknownMember, 400, 'INVALID_REQUEST');
  // An empty range exports nothing, and says so with an empty body.
  const empty = await operator('GET', '/audit/export?since=2001-01-01&until=2001-01-02', bob);
  assert.deepEqual([empty.status, empty.text], [200, '']);
});

test("an app's consents end through the API; a second call ends none and records nothing", { skip }, async () => {
  const { app, user, events } = await connectedApp('Noisy App');
  const ended = await operator('POST', `/apps/${app.clientId}/consents/end`, alice, { reason: 'cleanup' });
  assert.deepEqual(ended.json, { ended: 1, batches: 1 });
  assertProblem(await get('/me', user), 403, 'CONSENT_REVOKED');
  const revoked = await eventually(() => events().find((event) => event.type === 'consent.revoked'));
  assert.deepEqual([revoked.data.reason, revoked.data.consent_id], ['operator_revocation', user.consentId]);
  assert.deepEqual((await operator('POST', `/apps/${app.clientId}/consents/end`, alice)).json, {
    ended: 0,
    batches: 0,
  });
  const records = await operator('GET', `/audit?target=app:${app.clientId}&action=app.consents_end`, bob);
  assert.deepEqual(
    (records.json.data as AuditLine[]).map((record) => [record.details.consents_ended, record.details.reason]),
    [[1, 'cleanup']],
  );
});

test('an operator finds apps, accounts, players and consents, and looks into an app', { skip }, async () => {
  const { app, player, user } = await connectedApp('Lookup App');
  const found = await operator('GET', `/apps?client_id=${app.clientId.toUpperCase()}`, bob);
  assert.equal(found.status, 200, found.text);
  assert.deepEqual(
    (found.json.data as { client_id: string; account: { email: string } }[]).map((row) => [
      row.client_id,
      row.account.email,
    ]),
    [[app.clientId, developer.email]],
  );
  const byName = await operator('GET', `/apps?email=${encodeURIComponent(developer.email)}&name=lookup&limit=5`, bob);
  assert.deepEqual(
    (byName.json.data as { client_id: string }[]).map((row) => row.client_id),
    [app.clientId],
  );
  // The code's redemption was one token; a client-credentials grant is the second. Both counts and
  // the secret's last use are written off the token path, within a flush (50 ms here).
  const issued = await call(platform.base, '/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: 'grant_type=client_credentials',
  });
  assert.equal(issued.status, 200, issued.text);
  const shown = await eventually(async () => {
    const answer = await operator('GET', `/apps/${app.clientId}`, bob);
    assert.equal(answer.status, 200, answer.text);
    const used = (answer.json.secrets as { last_used_at: string | null }[])[0]?.last_used_at;
    return answer.json.tokens_last_day === 2 && used !== null && answer;
  });
  const lastUsed = Date.parse((shown.json.secrets as { last_used_at: string }[])[0]!.last_used_at);
  assert.ok(Math.abs(Date.now() - lastUsed) < 60_000, `last used ${new Date(lastUsed).toISOString()}`);
  assert.equal(shown.json.active_consents, 1);
  assert.equal(shown.json.webhook_url, receiver.url);
  assert.deepEqual(
    (shown.json.secrets as { status: string }[]).map((secret) => secret.status),
    ['active'],
  );
  assert.doesNotMatch(shown.text, new RegExp(app.clientSecret));
  assertProblem(await operator('GET', '/apps/svc_nosuchappatall', bob), 404, 'NOT_FOUND');
  const consents = await operator('GET', `/apps/${app.clientId}/consents?status=active`, bob);
  assert.equal(consents.status, 200, consents.text);
  assert.deepEqual(
    (consents.json.data as { id: string; player: { username: string }; status: string }[]).map((consent) => [
      consent.id,
      consent.player.username,
      consent.status,
    ]),
    [[user.consentId, player.username, 'active']],
  );
  const ofPlayer = await operator('GET', `/players/${player.username}/consents`, bob);
  assert.deepEqual(
    (ofPlayer.json.data as { client_id: string }[]).map((consent) => consent.client_id),
    [app.clientId],
  );
  const accounts = await operator('GET', `/accounts?email=${encodeURIComponent(developer.email.toUpperCase())}`, bob);
  assert.deepEqual(
    (accounts.json.data as { email: string }[]).map((account) => account.email),
    [developer.email],
  );
  const players = await operator(
    'GET',
    `/players?account=${encodeURIComponent(developer.email)}&username=${player.username}`,
    bob,
  );
  assert.deepEqual(
    (players.json.data as { username: string }[]).map((found) => found.username),
    [player.username],
  );
  assertProblem(await operator('GET', `/apps/${app.clientId}/consents?status=paused`, bob), 400, 'INVALID_REQUEST');
  assertProblem(await operator('GET', '/apps?status=paused', bob), 400, 'INVALID_REQUEST');
  assertProblem(await operator('GET', '/apps?colour=red', bob), 400, 'INVALID_REQUEST');
});

test('an admin API started without PAIRWISE_SECRET says so on the consent routes (503) and serves the rest', {
  skip,
}, async () => {
  const secretless = await adminProcess();
  try {
    const { app, player, user } = await connectedApp('Kept App');
    for (const path of [
      `/players/${player.username}/consents/end`,
      `/apps/${app.clientId}/consents/end`,
      `/consents/${user.consentId}/end`,
    ]) {
      const refused = await adminCall(secretless.url, 'POST', path, { token: alice });
      assertProblem(refused, 503, 'SERVICE_UNAVAILABLE');
      assert.match(refused.json.detail, /started without PAIRWISE_SECRET/);
    }
    assert.equal((await get('/me', user)).status, 200, 'nothing was ended');
    const suspended = await adminCall(secretless.url, 'POST', `/apps/${app.clientId}/suspend`, { token: alice });
    assert.equal(suspended.json.changed, true);
    assert.ok(secretless.logLines().some((line) => String(line.msg).includes('PAIRWISE_SECRET is not set')));
  } finally {
    assert.equal(await secretless.process.stop(), 0);
  }
});
