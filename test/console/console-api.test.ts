// The developer console's JSON API against the running platform: every endpoint, its refusals,
// and that what it changes reaches the public API (a revoked secret, a disabled app).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '@devplat/config';
import { buildConsoleApp } from '@devplat/console';
import { createLogger, listen } from '@devplat/http';
import { memoryStore } from '@devplat/kv';
import { hashPassword } from '@devplat/passwords';
import { consoleApiValidator, consoleCall, type Developer, registerDeveloper } from '@devplat/test/console-api';
import { productionEnv } from '@devplat/test/env';
import { fromAddress } from '@devplat/test/from-address';
import { type Answer, assertProblem, call, jsonOf } from '@devplat/test/http';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayers } from '@devplat/test/players';

let platform: TestPlatform;
let developer: Developer;
const newApp = {
  name: 'Weather Guide',
  redirect_uris: ['https://app.example.test/callback', 'http://127.0.0.1:8976/callback'],
  scopes: ['city.public.read', 'profile.basic.read'],
};

before(async () => {
  platform = await startTestPlatform();
  developer = await registerDeveloper(platform.console);
});
after(() => platform?.close());

const api = (method: string, path: string, options: Parameters<typeof consoleCall>[3] = {}) =>
  consoleCall(platform.console, method, path, { token: developer.token, ...options });

/**
 * `method` on `/api{path}` with a text body (fetch sends none with a GET), its length announced or
 * sent chunked; the answer checked against the console API document as consoleCall checks it.
 */
async function withBody(method: string, path: string, body: string, chunked: boolean): Promise<Answer> {
  const framing: Record<string, string> = chunked
    ? { 'transfer-encoding': 'chunked' }
    : { 'content-length': String(Buffer.byteLength(body)) };
  const reply = await fromAddress('127.0.0.1')(`${platform.console}/api${path}`, {
    method,
    headers: { authorization: `Bearer ${developer.token}`, 'content-type': 'text/plain', ...framing },
    body,
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(reply.headers)) {
    for (const each of [value ?? []].flat()) headers.append(name, each);
  }
  const errors = consoleApiValidator().check({ method, path, status: reply.status, headers, body: reply.text });
  assert.deepEqual(errors, [], `${method} /api${path} does not conform to the console API document`);
  return { status: reply.status, headers, text: reply.text, json: jsonOf(reply.text) };
}

function tokenRequest(clientId: string, clientSecret: string) {
  return fetch(`${platform.base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(clientId, clientSecret),
    },
    body: 'grant_type=client_credentials',
  });
}

async function appToken(clientId: string, clientSecret: string): Promise<string> {
  const response = await tokenRequest(clientId, clientSecret);
  assert.equal(response.status, 200);
  return ((await response.json()) as { access_token: string }).access_token;
}

const cities = (token: string) =>
  call(platform.base, '/cities?limit=100', { headers: { authorization: `Bearer ${token}` } });

describe('accounts and sessions', () => {
  test('registration makes a full account; the e-mail is unique', async () => {
    const email = `new-${Date.now()}@example.test`;
    const created = await consoleCall(platform.console, 'POST', '/accounts', {
      body: { email, password: 'correct horse battery', display_name: 'Ada' },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), ['display_name', 'email', 'id', 'kind']);
    assert.equal(created.json.kind, 'full');
    assert.equal(created.json.email, email);
    const again = await consoleCall(platform.console, 'POST', '/accounts', {
      body: { email: email.toUpperCase(), password: 'another long password', display_name: 'Ada' },
    });
    assertProblem(again, 409, 'EMAIL_TAKEN');
    const row = await platform.platform.database.prisma.account.findUniqueOrThrow({ where: { email } });
    assert.match(row.passwordHash, /^scrypt\$/, 'stored as a memory-hard hash');
  });

  test('bad registrations are refused with the reason', async () => {
    const cases: [unknown, RegExp][] = [
      [{ email: 'not-an-email', password: 'long enough password', display_name: 'A' }, /e-mail/],
      [{ email: 'a@example.test', password: 'short', display_name: 'A' }, /at least 12/],
      [{ email: 'a@example.test', password: 'long enough password' }, /display_name/],
      [
        { email: 'a@example.test', password: 'long enough password', display_name: 'A', kind: 'full' },
        /Unknown field "kind"/,
      ],
      [['not', 'an', 'object'], /JSON object/],
    ];
    for (const [body, reason] of cases) {
      const answer = await consoleCall(platform.console, 'POST', '/accounts', { body });
      assertProblem(answer, 400, 'INVALID_REQUEST');
      assert.match(answer.json.detail, reason);
    }
    assertProblem(
      await consoleCall(platform.console, 'POST', '/accounts', { body: '{"email":' }),
      400,
      'MALFORMED_REQUEST',
    );
    assertProblem(
      await consoleCall(platform.console, 'POST', '/accounts', {
        body: 'email=a@example.test',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    );
    assertProblem(
      await consoleCall(platform.console, 'POST', '/accounts', { body: { email: 'x'.repeat(20_000) } }),
      413,
      'PAYLOAD_TOO_LARGE',
    );
  });

  test('sign-in: a wrong password is 401, a guest account 403 with a clear message, a suspended one 403', async () => {
    assertProblem(
      await consoleCall(platform.console, 'POST', '/sessions', {
        body: { email: developer.email, password: 'wrong password!' },
      }),
      401,
      'INVALID_CREDENTIALS',
    );
    assertProblem(
      await consoleCall(platform.console, 'POST', '/sessions', {
        body: { email: 'nobody@example.test', password: 'whatever it is' },
      }),
      401,
      'INVALID_CREDENTIALS',
    );
    const prisma = platform.platform.database.prisma;
    const passwordHash = await hashPassword('guest password 123');
    const guest = await prisma.account.create({
      data: { email: `guest-${Date.now()}@example.test`, passwordHash, displayName: 'Guest', kind: 'guest' },
    });
    const refused = await consoleCall(platform.console, 'POST', '/sessions', {
      body: { email: guest.email, password: 'guest password 123' },
    });
    assertProblem(refused, 403, 'GUEST_ACCOUNT');
    assert.match(refused.json.detail, /Guest accounts cannot use the developer console/);
    const suspended = await prisma.account.create({
      data: {
        email: `suspended-${Date.now()}@example.test`,
        passwordHash,
        displayName: 'S',
        kind: 'full',
        status: 'suspended',
      },
    });
    assertProblem(
      await consoleCall(platform.console, 'POST', '/sessions', {
        body: { email: suspended.email, password: 'guest password 123' },
      }),
      403,
      'ACCOUNT_SUSPENDED',
    );
  });

  test('without a valid token every operation is 401 NOT_SIGNED_IN; sign-out ends the token', async () => {
    for (const token of [undefined, 'garbage', `dps_${'a'.repeat(43)}`]) {
      const answer = await consoleCall(platform.console, 'GET', '/apps', token ? { token } : {});
      assertProblem(answer, 401, 'NOT_SIGNED_IN');
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer /);
    }
    const other = await registerDeveloper(platform.console);
    const me = await consoleCall(platform.console, 'GET', '/account', { token: other.token });
    assert.equal(me.status, 200);
    assert.equal(me.json.email, other.email);
    assert.equal(
      (await consoleCall(platform.console, 'DELETE', '/sessions/current', { token: other.token })).status,
      204,
    );
    assertProblem(await consoleCall(platform.console, 'GET', '/account', { token: other.token }), 401, 'NOT_SIGNED_IN');
  });

  test('wrong methods are 405 with Allow, unknown paths 404, both as Problems', async () => {
    const answer = await api('PUT', '/apps');
    assertProblem(answer, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(answer.headers.get('allow'), 'GET, HEAD, POST');
    assert.equal(
      (await api('PUT', '/apps/svc_aaaaaaaaaaaaaaaaaaaaaaaaaa')).headers.get('allow'),
      'GET, HEAD, PATCH, DELETE',
    );
    assertProblem(await api('GET', '/nothing-here'), 404, 'NOT_FOUND');
  });
});

describe('apps and secrets', () => {
  test('create shows the secret once; list and view never show it; the secret gets tokens', async () => {
    const created = await api('POST', '/apps', {
      body: { ...newApp, webhook_url: 'https://hooks.example.test/consent' },
    });
    assert.equal(created.status, 201, created.text);
    const { app, client_secret: secret } = created.json;
    assert.match(app.client_id, /^svc_[a-z2-7]{26}$/);
    assert.equal(app.environment, 'sandbox');
    assert.equal(app.status, 'active');
    assert.deepEqual(app.scopes, newApp.scopes);
    assert.deepEqual(app.redirect_uris, newApp.redirect_uris);
    assert.equal(app.webhook_url, 'https://hooks.example.test/consent');
    assert.match(app.webhook_signing_secret, /^whsec_[A-Za-z0-9+/=]{32}$/);
    assert.equal(app.secrets.length, 1);
    const view = await api('GET', `/apps/${app.client_id}`);
    assert.deepEqual(view.json, app);
    const list = await api('GET', '/apps');
    assert.ok(list.json.data.some((listed: { client_id: string }) => listed.client_id === app.client_id));
    assert.ok(!view.text.includes(secret) && !list.text.includes(secret), 'the secret is shown only once');
    await appToken(app.client_id, secret);
  });

  test('refusals: sixth redirect URI, bad URI forms, unknown scope, bad webhook URL', async () => {
    const refusals: [Record<string, unknown>, RegExp][] = [
      [
        { redirect_uris: Array.from({ length: 6 }, (_, i) => `https://app.example.test/${i}`) },
        /At most 5 redirect URIs/,
      ],
      [{ redirect_uris: ['http://app.example.test/callback'] }, /http only on 127\.0\.0\.1/],
      [{ redirect_uris: ['https://app.example.test/callback#fragment'] }, /fragment/],
      [{ redirect_uris: ['https://user:pw@app.example.test/callback'] }, /credentials/],
      [{ redirect_uris: ['https://*.example.test/callback'] }, /wildcard|absolute/],
      [{ redirect_uris: ['/callback'] }, /absolute/],
      [{ redirect_uris: 'https://app.example.test/callback' }, /array/],
      // Only the canonical form is stored: matching is exact.
      [{ redirect_uris: [' https://app.example.test/callback'] }, /must not contain spaces/],
      [{ redirect_uris: ['https:\\\\app.example.test\\callback'] }, /must not contain backslashes/],
      [{ redirect_uris: ['https:///callback'] }, /must name a host/],
      [{ redirect_uris: ['https://App.example.test/callback'] }, /exactly as https:\/\/app\.example\.test\/callback/],
      [{ scopes: ['city.public.read', 'payments.write'] }, /Unknown scope "payments.write"/],
      [{ scopes: [] }, /at least one/],
      [{ webhook_url: 'http://hooks.example.test/consent' }, /webhook_url/],
      [{ webhook_url: 'https://10.0.0.8/consent' }, /webhook_url/],
      [{ webhook_url: 'https://hooks.example.test/consent ' }, /webhook_url must not contain spaces/],
      [{ webhook_url: 'https:///consent' }, /webhook_url must name a host/],
      [{ name: '' }, /name/],
      [{ name: 'Acme\u202Eppa' }, /control or formatting characters/],
      [{ client_secret: 'mine' }, /Unknown field/],
    ];
    for (const [change, reason] of refusals) {
      const answer = await api('POST', '/apps', { body: { ...newApp, ...change } });
      assertProblem(answer, 400, 'INVALID_REQUEST');
      assert.match(answer.json.detail, reason, JSON.stringify(change));
    }
  });

  test("another developer's app is not found, and cannot be changed", async () => {
    const { json } = await api('POST', '/apps', { body: newApp });
    const other = await registerDeveloper(platform.console);
    const as = (method: string, path: string) => consoleCall(platform.console, method, path, { token: other.token });
    const clientId = json.app.client_id;
    assertProblem(await as('GET', `/apps/${clientId}`), 404, 'NOT_FOUND');
    assertProblem(await as('POST', `/apps/${clientId}/secrets`), 404, 'NOT_FOUND');
    assertProblem(await as('DELETE', `/apps/${clientId}/secrets/${json.app.secrets[0].secret_id}`), 404, 'NOT_FOUND');
    assertProblem(await as('POST', `/apps/${clientId}/disable`), 404, 'NOT_FOUND');
    assertProblem(await as('GET', `/apps/${clientId}/deliveries`), 404, 'NOT_FOUND');
    assert.deepEqual((await as('GET', '/apps')).json, { data: [] });
    assert.equal((await api('GET', `/apps/${clientId}`)).json.status, 'active');
  });

  test('rotation: both secrets work until the old one is revoked; its tokens then stop on their next use', async () => {
    const { json } = await api('POST', '/apps', { body: newApp });
    const clientId = json.app.client_id;
    const oldSecret = json.client_secret;
    const oldToken = await appToken(clientId, oldSecret);
    const rotated = await api('POST', `/apps/${clientId}/secrets`);
    assert.equal(rotated.status, 201, rotated.text);
    assert.deepEqual(Object.keys(rotated.json).sort(), ['client_secret', 'secret_id']);
    const newToken = await appToken(clientId, rotated.json.client_secret);
    await appToken(clientId, oldSecret);
    assertProblem(await api('POST', `/apps/${clientId}/secrets`), 409, 'SECRET_LIMIT');

    assert.equal((await api('DELETE', `/apps/${clientId}/secrets/${json.app.secrets[0].secret_id}`)).status, 204);
    const refused = await tokenRequest(clientId, oldSecret);
    assert.equal(refused.status, 401);
    assert.equal(((await refused.json()) as { error: string }).error, 'invalid_client');
    assertProblem(await cities(oldToken), 401, 'INVALID_TOKEN');
    assert.equal((await cities(newToken)).status, 200);
    const secrets = (await api('GET', `/apps/${clientId}`)).json.secrets;
    assert.deepEqual(
      secrets.map((secret: { status: string }) => secret.status),
      ['revoked', 'active'],
    );
    assert.equal(
      (await api('DELETE', `/apps/${clientId}/secrets/${json.app.secrets[0].secret_id}`)).status,
      204,
      'idempotent',
    );
    assertProblem(await api('DELETE', `/apps/${clientId}/secrets/not-a-secret`), 404, 'NOT_FOUND');
  });

  test('disabling an app stops its tokens on their next use and refuses new ones', async () => {
    const { json } = await api('POST', '/apps', { body: newApp });
    const clientId = json.app.client_id;
    const token = await appToken(clientId, json.client_secret);
    const disabled = await api('POST', `/apps/${clientId}/disable`);
    assert.equal(disabled.status, 200);
    assert.equal(disabled.json.status, 'disabled');
    assertProblem(await cities(token), 401, 'INVALID_TOKEN');
    assert.equal((await tokenRequest(clientId, json.client_secret)).status, 401);
    assertProblem(await api('POST', `/apps/${clientId}/secrets`), 409, 'APP_DISABLED');
    assertProblem(await api('POST', `/apps/${clientId}/production-credentials`), 503, 'FEATURE_DISABLED');
    assertProblem(await api('GET', '/production-credentials'), 503, 'FEATURE_DISABLED');
    const audit = await platform.platform.database.prisma.auditRecord.findMany({
      where: { actorId: developer.id, action: 'app.disable' },
    });
    assert.equal(audit.length, 1);
  });
});

describe('webhook URL', () => {
  test('set, changed and removed after creation; refused when unsafe, foreign or disabled', async () => {
    const { json } = await api('POST', '/apps', { body: newApp });
    const clientId = json.app.client_id;
    const set = await api('PATCH', `/apps/${clientId}`, { body: { webhook_url: 'https://hooks.example.test/new' } });
    assert.equal(set.status, 200, set.text);
    assert.equal(set.json.webhook_url, 'https://hooks.example.test/new');
    assert.equal((await api('GET', `/apps/${clientId}`)).json.webhook_url, 'https://hooks.example.test/new');
    for (const body of [
      { webhook_url: 'http://hooks.example.test/x' },
      { webhook_url: 'https://192.168.1.10/x' },
      { webhook_url: 42 },
      { webhook_url: 'https://hooks.example.test/x', name: '' },
      {},
    ]) {
      assertProblem(await api('PATCH', `/apps/${clientId}`, { body }), 400, 'INVALID_REQUEST');
    }
    const other = await registerDeveloper(platform.console);
    assertProblem(
      await consoleCall(platform.console, 'PATCH', `/apps/${clientId}`, {
        token: other.token,
        body: { webhook_url: 'https://attacker.example.test/x' },
      }),
      404,
      'NOT_FOUND',
    );
    const removed = await api('PATCH', `/apps/${clientId}`, { body: { webhook_url: null } });
    assert.equal(removed.json.webhook_url, null);
    assertProblem(await api('POST', `/apps/${clientId}/webhooks/test`), 409, 'NO_WEBHOOK_URL');
    await api('POST', `/apps/${clientId}/disable`);
    assertProblem(
      await api('PATCH', `/apps/${clientId}`, { body: { webhook_url: 'https://hooks.example.test/x' } }),
      409,
      'APP_DISABLED',
    );
  });
});

describe('sandbox players', () => {
  test('created players can sign in on the player client; usernames are unique', async () => {
    const username = `tester-${Date.now()}`;
    const created = await api('POST', '/sandbox-players', {
      body: { username, password: 'player password', display_name: 'Tess' },
    });
    assert.equal(created.status, 201, created.text);
    assert.deepEqual(Object.keys(created.json).sort(), ['created_at', 'display_name', 'id', 'status', 'username']);
    assert.equal(created.json.display_name, 'Tess');
    const nameless = await api('POST', '/sandbox-players', {
      body: { username: `${username}-2`, password: 'player password' },
    });
    assert.equal(nameless.json.display_name, null);
    assertProblem(
      await api('POST', '/sandbox-players', { body: { username, password: 'player password' } }),
      409,
      'USERNAME_TAKEN',
    );
    assertProblem(
      await api('POST', '/sandbox-players', { body: { username: 'A!', password: 'player password' } }),
      400,
      'INVALID_REQUEST',
    );
    assertProblem(
      await api('POST', '/sandbox-players', {
        body: { username: `${username}-3`, password: 'player password', balance: 100 },
      }),
      400,
      'INVALID_REQUEST',
    );
    const list = await api('GET', '/sandbox-players');
    assert.deepEqual(
      list.json.data
        .map((player: { username: string }) => player.username)
        .filter((name: string) => name.startsWith(username)),
      [username, `${username}-2`],
    );
  });
});

describe('sandbox players, a page at a time', () => {
  type Listed = { id: string; username: string; created_at: string };
  let pager: Developer;
  let neighbour: Developer;
  /** The pager's players as the database orders them: oldest first, by created_at then id. */
  let expected: string[];

  /** Every page of the developer's players, `limit` a page (none: the default). */
  async function pagesOf(who: Developer, limit?: number) {
    const pages: { data: Listed[]; next_cursor: string | null }[] = [];
    let cursor: string | null = null;
    do {
      const query = new URLSearchParams({ ...(limit && { limit: String(limit) }), ...(cursor && { cursor }) });
      const answer = await consoleCall(platform.console, 'GET', `/sandbox-players?${query}`, { token: who.token });
      assert.equal(answer.status, 200, answer.text);
      assert.deepEqual(Object.keys(answer.json).sort(), ['data', 'next_cursor']);
      pages.push(answer.json);
      cursor = answer.json.next_cursor;
      assert.ok(pages.length <= 100, 'the pages end');
    } while (cursor);
    return pages;
  }

  before(async () => {
    pager = await registerDeveloper(platform.console);
    neighbour = await registerDeveloper(platform.console);
    const prisma = platform.platform.database.prisma;
    // 60 made in one statement (one created_at: the id orders them), then two through the API.
    await createPlayers(prisma, pager.id, 60);
    for (const n of [1, 2]) {
      const made = await consoleCall(platform.console, 'POST', '/sandbox-players', {
        token: pager.token,
        body: { username: `pager-${Date.now()}-${n}`, password: 'player password' },
      });
      assert.equal(made.status, 201, made.text);
    }
    await createPlayers(prisma, neighbour.id, 5);
    const rows = await prisma.sandboxPlayer.findMany({
      where: { accountId: pager.id },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      select: { id: true },
    });
    expected = rows.map((row) => row.id);
    assert.equal(expected.length, 62);
  });

  test('50 by default, oldest first; next_cursor walks to the end, every player once', async () => {
    const pages = await pagesOf(pager);
    assert.deepEqual(
      pages.map((page) => page.data.length),
      [50, 12],
    );
    assert.equal(pages.at(-1)?.next_cursor, null);
    assert.deepEqual(
      pages.flatMap((page) => page.data.map((player) => player.id)),
      expected,
    );
    const times = pages.flatMap((page) => page.data.map((player) => player.created_at));
    assert.deepEqual(times, times.toSorted(), 'oldest first');
    assert.match(pages.at(-1)?.data.at(-1)?.username ?? '', /^pager-.*-2$/, 'the newest is last');
  });

  test('limit sizes the pages, from 1 to 200; the last page has a null next_cursor', async () => {
    for (const [limit, sizes] of [
      [25, [25, 25, 12]],
      [61, [61, 1]],
      [62, [62]],
      [200, [62]],
    ] as const) {
      const pages = await pagesOf(pager, limit);
      assert.deepEqual(
        pages.map((page) => page.data.length),
        sizes,
        `limit=${limit}`,
      );
      const ids = pages.flatMap((page) => page.data.map((player) => player.id));
      assert.deepEqual(ids, expected, `limit=${limit}: none missed, none twice, in order`);
    }
    const one = await api('GET', '/sandbox-players?limit=1');
    assert.equal(one.json.data.length, 1);
    assert.equal(typeof one.json.next_cursor, 'string');
  });

  test("another developer's players are never seen, not even with the pager's cursor", async () => {
    const theirs = (await pagesOf(neighbour, 2)).flatMap((page) => page.data.map((player) => player.id));
    assert.equal(theirs.length, 5);
    assert.ok(!theirs.some((id) => expected.includes(id)), "none of the pager's");
    const mine = (await pagesOf(pager, 200)).flatMap((page) => page.data.map((player) => player.id));
    assert.ok(!mine.some((id) => theirs.includes(id)), "none of the neighbour's");
    // A cursor names a place in the order, not an account: the neighbour gets only their own.
    const first = await consoleCall(platform.console, 'GET', '/sandbox-players?limit=1', { token: pager.token });
    const borrowed = await consoleCall(
      platform.console,
      'GET',
      `/sandbox-players?cursor=${encodeURIComponent(first.json.next_cursor)}`,
      { token: neighbour.token },
    );
    assert.equal(borrowed.status, 200, borrowed.text);
    assert.ok(
      borrowed.json.data.every((player: Listed) => theirs.includes(player.id)),
      'only their own players',
    );
  });

  test('another parameter, one given twice, a bad limit or a cursor of another listing: 400 INVALID_REQUEST', async () => {
    const valid = (await api('GET', '/sandbox-players?limit=1')).json.next_cursor as string;
    const cursorOf = (listing: string) =>
      Buffer.from(JSON.stringify([listing, '2026-01-01T00:00:00.000Z', expected[0]])).toString('base64url');
    const refusals: [string, RegExp][] = [
      ['page=2', /Unknown query parameter page/],
      ['status=active', /Unknown query parameter status/],
      ['limit=1&limit=2', /limit may appear once/],
      [`cursor=${valid}&cursor=${valid}`, /cursor may appear once/],
      ['limit=0', /limit must be an integer from 1 to 200/],
      ['limit=201', /limit must be an integer from 1 to 200/],
      ['limit=ten', /limit must be an integer from 1 to 200/],
      ['limit=-1', /limit must be an integer from 1 to 200/],
      ['limit=1.5', /limit must be an integer from 1 to 200/],
      ['limit=', /limit must be an integer from 1 to 200/],
      ['cursor=nonsense', /cursor is not one this listing gave/],
      [`cursor=${cursorOf('app-history')}`, /cursor is not one this listing gave/],
      [`cursor=${cursorOf('players')}`, /cursor is not one this listing gave/],
    ];
    for (const [query, detail] of refusals) {
      const answer = await api('GET', `/sandbox-players?${query}`);
      assertProblem(answer, 400, 'INVALID_REQUEST');
      assert.match(answer.json.detail, detail, query);
    }
    // An app history's own next_cursor, as that listing gave it.
    const app = await api('POST', '/apps', { body: newApp });
    await api('POST', `/apps/${app.json.app.client_id}/secrets`);
    const history = await api('GET', `/apps/${app.json.app.client_id}/history?limit=1`);
    assert.equal(typeof history.json.next_cursor, 'string');
    assertProblem(
      await api('GET', `/sandbox-players?cursor=${encodeURIComponent(history.json.next_cursor)}`),
      400,
      'INVALID_REQUEST',
    );
    assertProblem(await consoleCall(platform.console, 'GET', '/sandbox-players'), 401, 'NOT_SIGNED_IN');
  });
});

describe('webhook tools', () => {
  test("a test webhook needs a webhook URL; deliveries and replays are the owner's only", async () => {
    const bare = await api('POST', '/apps', { body: newApp });
    assertProblem(await api('POST', `/apps/${bare.json.app.client_id}/webhooks/test`), 409, 'NO_WEBHOOK_URL');
    const hooked = await api('POST', '/apps', { body: { ...newApp, webhook_url: 'https://hooks.example.test/x' } });
    const clientId = hooked.json.app.client_id;
    const sent = await api('POST', `/apps/${clientId}/webhooks/test`);
    assert.equal(sent.status, 202, sent.text);
    const all = await api('GET', `/apps/${clientId}/deliveries`);
    const delivery = all.json.data.find((d: { delivery_id: string }) => d.delivery_id === sent.json.delivery_id);
    assert.equal(delivery.event_type, 'consent.granted');
    assert.equal(delivery.test, true);
    assert.deepEqual(
      (await api('GET', `/apps/${clientId}/deliveries?status=succeeded`)).json.data.filter(
        (d: { delivery_id: string }) => d.delivery_id === sent.json.delivery_id,
      ),
      [],
    );
    assertProblem(await api('GET', `/apps/${clientId}/deliveries?status=lost`), 400, 'INVALID_REQUEST');
    assertProblem(await api('GET', `/apps/${clientId}/deliveries?page=2`), 400, 'INVALID_REQUEST');
    const other = await registerDeveloper(platform.console);
    assertProblem(
      await consoleCall(platform.console, 'POST', `/deliveries/${sent.json.delivery_id}/replay`, {
        token: other.token,
      }),
      404,
      'NOT_FOUND',
    );
    assertProblem(await api('POST', '/deliveries/not-a-delivery/replay'), 404, 'NOT_FOUND');
  });
});

test('the console is switched off in production and while the platform is off', async () => {
  for (const env of [{ DEVELOPER_PLATFORM_ENABLED: 'off' }, productionEnv]) {
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent' });
    const app = buildConsoleApp({
      config,
      prisma: platform.platform.database.prisma,
      store: memoryStore(),
      pairwiseSecret: 'a pairwise secret for a console that is switched off',
      logger: createLogger('silent', 'console'),
    });
    const server = await listen(app.callback(), '127.0.0.1', 0);
    try {
      assertProblem(await consoleCall(server.origin, 'POST', '/accounts', { body: {} }), 503, 'FEATURE_DISABLED');
      assertProblem(await consoleCall(server.origin, 'GET', '/apps'), 503, 'FEATURE_DISABLED');
      const page = await fetch(`${server.origin}/signin`);
      assert.equal(page.status, 503);
      assert.match(await page.text(), /sandbox only and is switched off/);
    } finally {
      await server.close();
    }
  }
});

describe('requests checked by the console API document', () => {
  test('a member, a type or a body the document does not take is refused before anything changes', async () => {
    const { json: app } = await api('POST', '/apps', { body: newApp });
    const clientId = app.app.client_id as string;
    const refusals: [string, string, unknown, RegExp][] = [
      [
        'POST',
        `/apps/${clientId}/disable`,
        { force: true },
        /^Unknown field "force": this operation takes none \(send \{\} or no body\)\.$/,
      ],
      ['POST', `/apps/${clientId}/disable`, [], /^The body must be a JSON object\.$/],
      [
        'PATCH',
        `/apps/${clientId}`,
        { redirect_uris: 'https://app.example.test/cb' },
        /^redirect_uris must be an array of strings\.$/,
      ],
      ['PATCH', `/apps/${clientId}`, { name: 7 }, /^name is required and must be a string\.$/],
      ['PATCH', `/apps/${clientId}`, { status: 'disabled' }, /^Unknown field "status"\. Allowed: /],
      ['POST', '/apps', { ...newApp, scopes: 'city.public.read' }, /^scopes must be an array of strings\.$/],
    ];
    for (const [method, path, body, detail] of refusals) {
      const answer = await api(method, path, { body });
      assertProblem(answer, 400, 'INVALID_REQUEST');
      assert.match(answer.json.detail, detail, `${method} ${path} ${JSON.stringify(body)}`);
    }
    const query = await api('GET', '/apps?verbose=1');
    assertProblem(query, 400, 'INVALID_REQUEST');
    assert.equal(query.json.detail, 'Unknown query parameter verbose: this operation takes none.');
    const text = await api('POST', `/apps/${clientId}/disable`, {
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    assertProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
    const { json: still } = await api('GET', `/apps/${clientId}`);
    assert.deepEqual([still.status, still.name, still.redirect_uris], ['active', newApp.name, newApp.redirect_uris]);
    // No body, or {}, is what an operation without one takes.
    assert.equal((await api('POST', `/apps/${clientId}/disable`)).status, 200);
  });

  test('a body in another charset than UTF-8 is refused with 415 before anything changes; charset=utf-8 is taken', async () => {
    const appCount = async () => ((await api('GET', '/apps')).json.data as unknown[]).length;
    const before = await appCount();
    for (const contentType of [
      'application/json; charset=utf-16',
      'application/json; charset="ISO-8859-1"',
      'application/json; charset=utf-16; boundary',
    ]) {
      const refused = await api('POST', '/apps', { body: newApp, headers: { 'content-type': contentType } });
      assertProblem(refused, 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.equal(
        refused.json.detail,
        'The body must be UTF-8 JSON: send Content-Type: application/json with no charset, or charset=utf-8.',
        contentType,
      );
    }
    assert.equal(await appCount(), before, 'no app was made');
    for (const contentType of ['application/json; charset=UTF-8', 'application/json;charset="utf-8"']) {
      const made = await api('POST', '/apps', { body: newApp, headers: { 'content-type': contentType } });
      assert.equal(made.status, 201, `${contentType}: ${made.text}`);
    }
    assert.equal(await appCount(), before + 2);
  });

  test('a GET or DELETE that carries a body is refused unread with 400; without one it is served', async () => {
    const { json: made } = await api('POST', '/apps', { body: newApp });
    const clientId = made.app.client_id as string;
    const secretId = made.app.secrets[0].secret_id as string;
    const notJson = 'x'.repeat(17 * 1024);
    const cases: [string, string, boolean][] = [
      ['GET', `/apps/${clientId}`, false],
      ['GET', '/apps', true],
      ['DELETE', `/apps/${clientId}/secrets/${secretId}`, false],
      ['DELETE', `/apps/${clientId}`, false],
      ['DELETE', `/apps/${clientId}`, true],
    ];
    for (const [method, path, chunked] of cases) {
      const answer = await withBody(method, path, notJson, chunked);
      assertProblem(answer, 400, 'INVALID_REQUEST');
      assert.equal(answer.json.detail, 'This operation takes no body.', `${method} ${path}`);
    }
    const { json: still } = await api('GET', `/apps/${clientId}`);
    assert.equal(still.status, 'active', 'the DELETEs with a body deleted nothing');
    assert.deepEqual(
      still.secrets.map(({ status }: { status: string }) => status),
      ['active'],
    );
    assert.equal((await api('DELETE', `/apps/${clientId}/secrets/${secretId}`)).status, 204);
    assert.equal((await api('DELETE', `/apps/${clientId}`)).status, 200);
    assertProblem(await api('GET', `/apps/${clientId}`), 404, 'NOT_FOUND');
  });

  test('a path id no resource could have is that resource not found', async () => {
    const { json: app } = await api('POST', '/apps', { body: newApp });
    const clientId = app.app.client_id as string;
    const cases: [string, string, RegExp][] = [
      ['GET', '/apps/not-a-client-id', /^The app not-a-client-id does not exist or is not yours\.$/],
      ['GET', `/apps/${'a'.repeat(300)}`, /^The app a+ does not exist or is not yours\.$/],
      [
        'DELETE',
        `/apps/${clientId}/secrets/not-a-secret`,
        /^The secret not-a-secret does not exist or is not yours\.$/,
      ],
      ['POST', '/deliveries/not-a-delivery/replay', /^The delivery not-a-delivery does not exist or is not yours\.$/],
    ];
    for (const [method, path, detail] of cases) {
      const answer = await api(method, path);
      assertProblem(answer, 404, 'NOT_FOUND');
      assert.match(answer.json.detail, detail, `${method} ${path}`);
    }
  });
});
