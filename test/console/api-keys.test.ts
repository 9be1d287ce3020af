// API keys: a developer makes one from a signed-in session (shown once, kept as its SHA-256),
// lists and revokes it; the key drives the console API within its scope (a read key never sees a
// webhook signing secret, nor changes anything) and never manages keys or signs out; revoked,
// expired, or of a suspended account, it answers 401 on the next call. An operator token opens
// nothing at the console and an API key nothing at the admin API. Creating and revoking are in the
// account's history, on the API and on the account's page; the web UI's API keys page makes and
// revokes keys with its forms. Every API answer is checked against the console API document.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { appDirectory } from '@devplat/app-directory';
import { reactivateAccount, suspendAccount } from '@devplat/domain/workflows';
import { adminCall, operatorTokensFile } from '@devplat/test/admin-api';
import { consoleCall, type Developer, registerDeveloper, signInToWeb } from '@devplat/test/console-api';
import { realPostgresUrl } from '@devplat/test/database';
import { assertProblem } from '@devplat/test/http';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { newKey, operatorTokenPrefix } from '../../packages/1-foundation/keys/src/index.ts';

const needsStores =
  realPostgresUrl && process.env.REDIS_URL?.trim() ? false : 'the admin listener needs a real PostgreSQL and Redis';
const scratch = mkdtempSync(join(tmpdir(), 'devplat-api-keys-'));
const tokens = operatorTokensFile(join(scratch, 'operator-tokens'));
const operatorToken = newKey(operatorTokenPrefix);

let platform: TestPlatform;
let developer: Developer;

before(async () => {
  tokens.add('ops-keys', 'write', operatorToken);
  platform = await startTestPlatform(needsStores ? {} : { ADMIN_TOKENS_FILE: tokens.file, ADMIN_PORT: '0' }, {
    webhookWorker: false,
  });
  developer = await registerDeveloper(platform.console);
});
after(async () => {
  await platform?.close();
  rmSync(scratch, { recursive: true, force: true });
});

const prisma = () => platform.platform.database.prisma;
const api = (token: string, method: string, path: string, body?: unknown) =>
  consoleCall(platform.console, method, path, { token, ...(body !== undefined && { body }) });
const asDeveloper = (method: string, path: string, body?: unknown) => api(developer.token, method, path, body);
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const dayMs = 24 * 60 * 60 * 1000;

/** A new key of the session's account: its id and the key. */
async function makeKey(session: string, scope: 'read' | 'write', name = `${scope} key`) {
  const made = await api(session, 'POST', '/api-keys', { name, scope });
  assert.equal(made.status, 201, made.text);
  return { id: made.json.api_key.id as string, key: made.json.key as string, answer: made };
}

/** Asserts a 401 NOT_SIGNED_IN with the bearer challenge and a detail matching `reason`. */
function assertRefusedKey(answer: Awaited<ReturnType<typeof consoleCall>>, reason: RegExp) {
  assertProblem(answer, 401, 'NOT_SIGNED_IN');
  assert.equal(answer.headers.get('www-authenticate'), 'Bearer realm="developer-console"');
  assert.match(answer.json.detail, reason);
}

describe('making, listing and revoking keys', () => {
  test('created: 201 with the key once; listed by its last four characters; PostgreSQL holds only its SHA-256', async () => {
    const made = await asDeveloper('POST', '/api-keys', { name: 'CI deploy', scope: 'write', expires_in_days: 90 });
    assert.equal(made.status, 201, made.text);
    const { api_key: listed, key } = made.json;
    assert.match(key, /^devplat_key_[0-9A-Za-z]{43}$/);
    assert.deepEqual(
      { name: listed.name, scope: listed.scope, hint: listed.hint, status: listed.status, used: listed.last_used_at },
      { name: 'CI deploy', scope: 'write', hint: key.slice(-4), status: 'active', used: null },
    );
    const lifetime = Date.parse(listed.expires_at) - Date.parse(listed.created_at);
    assert.equal(lifetime, 90 * dayMs);

    const list = await asDeveloper('GET', '/api-keys');
    assert.equal(list.status, 200);
    assert.deepEqual(list.json.data[0], listed);
    assert.ok(!list.text.includes(key.slice(12, 40)), 'the list never shows the key');

    const row = await prisma().apiKey.findUniqueOrThrow({ where: { id: listed.id } });
    assert.equal(row.keyHash, sha256(key));
    assert.ok(!JSON.stringify(row).includes(key.slice(12, 40)), 'the row holds no key');

    const byDefault = await asDeveloper('POST', '/api-keys', { name: 'thirty days', scope: 'read' });
    assert.equal(byDefault.status, 201);
    assert.equal(
      Date.parse(byDefault.json.api_key.expires_at) - Date.parse(byDefault.json.api_key.created_at),
      30 * dayMs,
    );
  });

  test('a lifetime beyond 365 days, a scope other than read or write, no name: 400 with the rule', async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: 'x', scope: 'write', expires_in_days: 366 }, /from 1 to 365 \(365 is the longest a key may live/],
      [{ name: 'x', scope: 'write', expires_in_days: 0 }, /from 1 to 365/],
      [{ name: 'x', scope: 'write', expires_in_days: 1.5 }, /whole number/],
      [{ name: 'x', scope: 'write', expires_in_days: '30' }, /whole number/],
      [{ name: 'x', scope: 'admin' }, /scope is required: read or write/],
      [{ name: 'x' }, /scope is required/],
      [{ scope: 'read' }, /name is required/],
      [{ name: 'x', scope: 'read', key: 'mine' }, /Unknown field "key"/],
    ];
    for (const [body, reason] of cases) {
      const refused = await asDeveloper('POST', '/api-keys', body);
      assertProblem(refused, 400, 'INVALID_REQUEST');
      assert.match(refused.json.detail, reason);
    }
  });

  test('revoked: 204, refused from its next call, listed as revoked; again 204; unknown or not yours 404', async () => {
    const { id, key } = await makeKey(developer.token, 'read');
    assert.equal((await api(key, 'GET', '/apps')).status, 200);
    assert.equal((await asDeveloper('DELETE', `/api-keys/${id}`)).status, 204);
    assertRefusedKey(await api(key, 'GET', '/apps'), /^This API key was revoked at \S+Z: make a new one/);
    const listed = (await asDeveloper('GET', '/api-keys')).json.data.find((each: { id: string }) => each.id === id);
    assert.equal(listed.status, 'revoked');
    assert.ok(listed.revoked_at);
    assert.equal((await asDeveloper('DELETE', `/api-keys/${id}`)).status, 204);
    assertProblem(await asDeveloper('DELETE', `/api-keys/${randomUUID()}`), 404, 'NOT_FOUND');
    assertProblem(await asDeveloper('DELETE', '/api-keys/not-a-key-id'), 404, 'NOT_FOUND');
    const stranger = await registerDeveloper(platform.console);
    const theirs = await makeKey(stranger.token, 'write');
    assertProblem(await asDeveloper('DELETE', `/api-keys/${theirs.id}`), 404, 'NOT_FOUND');
    assert.equal((await api(theirs.key, 'GET', '/apps')).status, 200, 'still works');
  });

  test('expired: refused from its next call', async () => {
    const { id, key } = await makeKey(developer.token, 'write');
    assert.equal((await api(key, 'GET', '/account')).status, 200);
    await prisma().apiKey.update({ where: { id }, data: { expiresAt: new Date(Date.now() - 1000) } });
    assertRefusedKey(await api(key, 'GET', '/account'), /^This API key expired at \S+Z: make a new one/);
    const listed = (await asDeveloper('GET', '/api-keys')).json.data.find((each: { id: string }) => each.id === id);
    assert.equal(listed.status, 'expired');
  });

  test('at most 20 keys neither revoked nor expired: 409 API_KEY_LIMIT until one is revoked', async () => {
    const owner = await registerDeveloper(platform.console);
    const ids: string[] = [];
    for (let made = 0; made < 20; made++) ids.push((await makeKey(owner.token, 'read', `key ${made}`)).id);
    const refused = await api(owner.token, 'POST', '/api-keys', { name: 'one more', scope: 'read' });
    assertProblem(refused, 409, 'API_KEY_LIMIT');
    assert.match(refused.json.detail, /at most 20 API keys/);
    assert.equal((await api(owner.token, 'DELETE', `/api-keys/${ids[0]}`)).status, 204);
    assert.equal((await api(owner.token, 'POST', '/api-keys', { name: 'one more', scope: 'read' })).status, 201);
  });
});

describe('the key limit under concurrency', () => {
  const limitDetail =
    'An account holds at most 20 API keys that are neither revoked nor expired: revoke one it no longer uses first.';
  const problemOf = ({
    json: { instance: _instance, request_id: _id, ...problem },
  }: {
    json: Record<string, unknown>;
  }) => problem;

  /** `count` creates of the owner's at once, then one more: the answers of those at once, and the one after. */
  async function createAtOnce(owner: Developer, count: number) {
    const answers = await Promise.all(
      Array.from({ length: count }, (_, n) =>
        api(owner.token, 'POST', '/api-keys', { name: `race ${n}`, scope: 'read' }),
      ),
    );
    const after = await api(owner.token, 'POST', '/api-keys', { name: 'after the race', scope: 'read' });
    return {
      made: answers.filter((answer) => answer.status === 201),
      refused: answers.filter((a) => a.status !== 201),
      after,
    };
  }

  /** The owner's keys neither revoked nor expired, as PostgreSQL holds them. */
  const liveKeys = (owner: Developer) =>
    prisma().apiKey.count({ where: { accountId: owner.id, revokedAt: null, expiresAt: { gt: new Date() } } });

  for (const [held, count] of [
    [0, 25],
    [18, 20],
  ] as const) {
    test(`${count} creates at once from an account holding ${held}: exactly 20 live keys, the rest refused as the 21st is`, async () => {
      const owner = await registerDeveloper(platform.console);
      for (let made = 0; made < held; made++) await makeKey(owner.token, 'read', `held ${made}`);
      const { made, refused, after } = await createAtOnce(owner, count);
      assert.equal(made.length, 20 - held);
      assert.equal(refused.length, count - (20 - held));
      assert.equal(await liveKeys(owner), 20);
      assertProblem(after, 409, 'API_KEY_LIMIT');
      assert.equal(after.json.detail, limitDetail);
      for (const answer of refused) {
        assertProblem(answer, 409, 'API_KEY_LIMIT');
        assert.deepEqual(problemOf(answer), problemOf(after), 'the same refusal as a create in turn');
      }
      const audited = await prisma().auditRecord.count({
        where: { action: 'api_key.create', targetType: 'account', targetId: owner.id },
      });
      assert.equal(audited, 20, 'each key made is audited, and only those');
    });
  }
});

describe('what a key may do', () => {
  let clientId: string;
  let read: string;
  let write: string;
  before(async () => {
    const app = await asDeveloper('POST', '/apps', { name: 'Keyed App', scopes: ['city.public.read'] });
    assert.equal(app.status, 201, app.text);
    clientId = app.json.app.client_id;
    read = (await makeKey(developer.token, 'read')).key;
    write = (await makeKey(developer.token, 'write')).key;
  });

  test('a read key reads as its account, and never sees a webhook signing secret', async () => {
    assert.equal((await api(read, 'GET', '/account')).json.email, developer.email);
    const listed = await api(read, 'GET', '/apps');
    assert.equal(listed.status, 200);
    const mine = listed.json.data.find((app: { client_id: string }) => app.client_id === clientId);
    assert.equal(mine.webhook_signing_secret, null);
    const one = await api(read, 'GET', `/apps/${clientId}`);
    assert.equal(one.json.webhook_signing_secret, null);
    assert.doesNotMatch(listed.text + one.text, /whsec_/);
    for (const path of [`/apps/${clientId}/history`, `/apps/${clientId}/deliveries`, '/sandbox-players']) {
      assert.equal((await api(read, 'GET', path)).status, 200, path);
    }
    assert.equal((await api(read, 'HEAD', '/apps')).status, 200);
    // A session and a write key see it.
    assert.match((await asDeveloper('GET', `/apps/${clientId}`)).json.webhook_signing_secret, /^whsec_/);
    assert.match((await api(write, 'GET', `/apps/${clientId}`)).json.webhook_signing_secret, /^whsec_/);
  });

  test('a read key changes nothing: 403 INSUFFICIENT_SCOPE; a write key may', async () => {
    const attempts: [string, string, unknown?][] = [
      ['POST', '/apps', { name: 'Nope', scopes: ['city.public.read'] }],
      ['PATCH', `/apps/${clientId}`, { name: 'Renamed' }],
      ['POST', `/apps/${clientId}/secrets`],
      ['POST', `/apps/${clientId}/disable`],
      ['POST', '/sandbox-players', { username: `p-${Date.now()}`, password: 'player-password' }],
    ];
    for (const [method, path, body] of attempts) {
      const refused = await api(read, method, path, body);
      assertProblem(refused, 403, 'INSUFFICIENT_SCOPE');
      assert.match(refused.json.detail, new RegExp(`read scope: ${method} changes something`));
    }
    assert.equal((await asDeveloper('GET', `/apps/${clientId}`)).json.name, 'Keyed App');
    const made = await api(write, 'POST', '/apps', { name: 'Made By Key', scopes: ['city.public.read'] });
    assert.equal(made.status, 201, made.text);
    assert.match(made.json.client_secret, /^svs_/);
    assert.equal((await api(write, 'PATCH', `/apps/${clientId}`, { name: 'Renamed By Key' })).status, 200);
  });

  test("a key's event stream opens, as devplat listen's does", async () => {
    const stop = new AbortController();
    const response = await fetch(`${platform.console}/api/apps/${clientId}/events`, {
      headers: { authorization: `Bearer ${read}`, accept: 'text/event-stream' },
      signal: stop.signal,
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    stop.abort();
  });

  test('no key manages keys or signs out: 403 SESSION_REQUIRED; the session may', async () => {
    const { id } = await makeKey(developer.token, 'read', 'target');
    for (const [method, path, body] of [
      ['GET', '/api-keys'],
      ['POST', '/api-keys', { name: 'from a key', scope: 'write' }],
      ['DELETE', `/api-keys/${id}`],
      ['DELETE', '/sessions/current'],
    ] as [string, string, unknown?][]) {
      const refused = await api(write, method, path, body);
      assertProblem(refused, 403, 'SESSION_REQUIRED');
      assert.match(refused.json.detail, /An API key cannot manage API keys or change the account: sign in/);
    }
    assert.equal((await asDeveloper('GET', '/api-keys')).status, 200, 'the session still works');
  });

  test("the key's last use is noted, and listed", async () => {
    const { id, key } = await makeKey(developer.token, 'read', 'used');
    const before = Date.now();
    assert.equal((await api(key, 'GET', '/apps')).status, 200);
    const deadline = Date.now() + 5_000;
    let lastUsed: string | null = null;
    while (lastUsed === null) {
      assert.ok(Date.now() < deadline, 'last_used_at within 5 s');
      const listed = (await asDeveloper('GET', '/api-keys')).json.data.find((each: { id: string }) => each.id === id);
      lastUsed = listed.last_used_at;
      if (lastUsed === null) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.ok(Date.parse(lastUsed) >= before - 1000, lastUsed);
  });
});

describe('doors and accounts', () => {
  test("a suspended account's keys answer 401 from the next call, and work again once it is reactivated", async () => {
    const owner = await registerDeveloper(platform.console);
    const { key } = await makeKey(owner.token, 'read');
    assert.equal((await api(key, 'GET', '/apps')).status, 200);
    const directory = appDirectory(prisma(), platform.platform.store);
    const account = { id: owner.id, email: owner.email };
    await suspendAccount(prisma(), directory, { operator: 'ops-keys' }, account);
    assertRefusedKey(await api(key, 'GET', '/apps'), /^The account of this API key is suspended/);
    await reactivateAccount(prisma(), directory, { operator: 'ops-keys' }, account);
    assert.equal((await api(key, 'GET', '/apps')).status, 200);
  });

  test('a bearer that is no key of ours answers 401 with what it is not', async () => {
    assertRefusedKey(await api(`devplat_key_${'A'.repeat(43)}`, 'GET', '/apps'), /not valid: it is unknown/);
    assertRefusedKey(await api('devplat_key_short', 'GET', '/apps'), /This is not an API key/);
    assertRefusedKey(await api(operatorToken, 'GET', '/apps'), /An operator token opens the admin API only/);
  });

  test('an API key opens nothing at the admin API', { skip: needsStores }, async () => {
    const adminUrl = platform.platform.urls['Admin API'] as string;
    const path = `/accounts/${encodeURIComponent(developer.email)}`;
    assert.equal((await adminCall(adminUrl, 'GET', path, { token: operatorToken })).status, 200);
    const { key } = await makeKey(developer.token, 'write', 'for the admin door');
    const refused = await adminCall(adminUrl, 'GET', path, { token: key });
    assertProblem(refused, 401, 'INVALID_TOKEN');
    assert.match(refused.json.detail, /API key opens the developer console's API only/);
  });

  test("creating and revoking are in the account's history, with who and the request", async () => {
    const owner = await registerDeveloper(platform.console);
    const { id, answer } = await makeKey(owner.token, 'write', 'history key');
    const revoked = await api(owner.token, 'DELETE', `/api-keys/${id}`);
    const directory = appDirectory(prisma(), platform.platform.store);
    await suspendAccount(
      prisma(),
      directory,
      { operator: 'ops-keys' },
      { id: owner.id, email: owner.email },
      {
        reason: 'ticket 99: internal',
      },
    );
    // Suspended, the account's session is refused (its keys answer 401, above) until reactivated.
    assertProblem(await api(owner.token, 'GET', '/account/history'), 403, 'ACCOUNT_SUSPENDED');
    await reactivateAccount(prisma(), directory, { operator: 'ops-keys' }, { id: owner.id, email: owner.email });
    const page = await api(owner.token, 'GET', '/account/history');
    assert.equal(page.status, 200, page.text);
    const seen = page.json.data.map(
      (entry: { action: string; actor: unknown; summary: string; request_id: string }) => ({
        action: entry.action,
        actor: entry.actor,
        summary: entry.summary,
        request_id: entry.request_id,
      }),
    );
    const me = { type: 'developer', email: owner.email };
    assert.deepEqual(seen, [
      {
        action: 'account.reactivate',
        actor: { type: 'platform' },
        summary: 'Suspension lifted by the platform',
        request_id: null,
      },
      {
        action: 'account.suspend',
        actor: { type: 'platform' },
        summary: 'Account suspended by the platform',
        request_id: null,
      },
      {
        action: 'api_key.revoke',
        actor: me,
        summary: `API key "history key" revoked (id ${id})`,
        request_id: revoked.headers.get('x-request-id'),
      },
      {
        action: 'api_key.create',
        actor: me,
        summary: `API key "history key" created (write, expires ${answer.json.api_key.expires_at.slice(0, 10)}; id ${id})`,
        request_id: answer.headers.get('x-request-id'),
      },
      { action: 'account.register', actor: me, summary: 'Account registered', request_id: seen.at(-1).request_id },
    ]);
    assert.doesNotMatch(page.text, /ticket 99|ops-keys/, "never the operator's name or reason");
  });
});

describe('the API keys page', () => {
  const webSession = (who: Developer) => signInToWeb(platform.console, who);

  test('create shows the key once; the list shows its hint and times; Revoke stops it; the account page has the history', async () => {
    const owner = await registerDeveloper(platform.console);
    const web = await webSession(owner);
    const page = await web.get('/api-keys');
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /<a href="\/api-keys">API keys<\/a>/, 'in the navigation');
    assert.match(html, /You have no API keys\./);
    const csrf = /name="csrf" value="([^"]*)"/.exec(html)?.[1] ?? '';

    const refused = await web.post('/api-keys', { csrf, name: 'too long', scope: 'read', expires_in_days: '400' });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /expires_in_days must be a whole number of days from 1 to 365/);
    assert.equal((await web.post('/api-keys', { name: 'no csrf', scope: 'read', expires_in_days: '7' })).status, 403);

    const created = await web.post('/api-keys', { csrf, name: 'Web key', scope: 'write', expires_in_days: '7' });
    assert.equal(created.status, 201);
    const shown = await created.text();
    const key = /data-testid="api-key">(devplat_key_[0-9A-Za-z]{43})</.exec(shown)?.[1] as string;
    assert.ok(key, 'the key is shown');
    assert.match(shown, /Copy this API key now: it is shown only once\./);
    assert.equal((await api(key, 'GET', '/apps')).status, 200);

    const listed = await (await web.get('/api-keys')).text();
    assert.ok(!listed.includes(key), 'shown once only');
    assert.match(
      listed,
      new RegExp(`<td>Web key</td><td><code>…${key.slice(-4)}</code></td><td>write</td><td>active</td>`),
    );
    assert.match(listed, /<time datetime="[^"]+" title="[^"]+">/);
    const id = (await api(owner.token, 'GET', '/api-keys')).json.data[0].id;
    const revoked = await web.post(`/api-keys/${id}/revoke`, { csrf });
    assert.equal(revoked.status, 303);
    assert.equal(revoked.headers.get('location'), '/api-keys');
    assert.match(
      await (await web.get('/api-keys')).text(),
      /Revoked the API key &quot;Web key&quot;: it answers 401 from its next call\./,
    );
    assertRefusedKey(await api(key, 'GET', '/apps'), /revoked/);

    const account = await (await web.get('/account')).text();
    assert.match(account, /API key &quot;Web key&quot; revoked/);
    assert.match(account, /API key &quot;Web key&quot; created \(write, expires/);
    assert.match(account, /Account registered/);
  });
});
