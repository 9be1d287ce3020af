// The operators' admin API as an operator's script meets it: the real admin process
// (services/admin/src/serve.ts) on a loopback port beside a running platform, on the same
// PostgreSQL database and Redis keys, with an operator tokens file the test writes. Every answer is
// checked against the admin API's OpenAPI document.

import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { UsageError } from '@devplat/command-line';
import { problemCodes, problemType } from '@devplat/contract';
import { adminApiDocumentPath, loadAdminApiDocument } from '@devplat/contract/openapi';
import {
  adminApiValidator,
  adminCall,
  operatorTokensFile,
  type RunningAdminApi,
  startAdminApi,
} from '@devplat/test/admin-api';
import { createTestApp } from '@devplat/test/apps';
import { realPostgresUrl } from '@devplat/test/database';
import { assertProblem, call } from '@devplat/test/http';
import { authorizationRequest, basicAuth, redeemCode } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp, createPlayer } from '@devplat/test/players';
import { freePort } from '@devplat/test/process';
import { failedAttempts } from '../../services/admin/src/api/failures.ts';
import { createTokenCommand } from '../../services/admin/src/create-token.ts';

const redisUrl = process.env.REDIS_URL?.trim() || null;
const needsStores = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';

/** Runs `admin create-token` as main.ts would, and returns what it printed. */
async function createToken(options: Record<string, string>) {
  let out = '';
  let note = '';
  await createTokenCommand.run({
    options,
    args: {},
    env: {},
    io: {
      out: (text) => {
        out += text;
      },
      note: (text) => {
        note += text;
      },
    },
  });
  const [token, line, ...rest] = out.split('\n');
  assert.deepEqual(rest, [''], 'two lines on stdout');
  return { token: token as string, line: line as string, note };
}

/** Polls `check` every 100 ms until it holds, for at most `withinMs`; returns how long it took. */
async function within(withinMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  while (!(await check())) {
    assert.ok(Date.now() - started < withinMs, `not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Date.now() - started;
}

describe('admin create-token', () => {
  test('prints a new token and the one line of the tokens file that admits it, which holds its hash and never the token', async () => {
    const { token, line, note } = await createToken({ name: 'ops-alice', role: 'write' });
    assert.match(token, /^devplat_admin_[0-9A-Za-z]{43}$/);
    const [name, role, hash] = line.split(' ');
    assert.deepEqual([name, role], ['ops-alice', 'write']);
    assert.match(hash ?? '', /^[0-9a-f]{64}$/);
    assert.ok(!line.includes(token));
    assert.match(note, /shown this once/);
    assert.match(note, /ADMIN_TOKENS_FILE/);
    assert.notEqual((await createToken({ name: 'ops-alice', role: 'write' })).token, token);
  });

  test('a missing or malformed --name or --role is a usage error (exit 64)', async () => {
    for (const [options, message] of [
      [{ role: 'read' }, /--name <name> is required/],
      [{ name: 'ops alice', role: 'read' }, /--name must be 1 to 100 letters/],
      [{ name: 'ops-alice' }, /--role must be read or write$/],
      [{ name: 'ops-alice', role: 'admin' }, /--role must be read or write \(got "admin"\)/],
    ] as const) {
      // A UsageError, which the admin command answers with exit 64 (services/admin/test/admin.test.ts).
      await assert.rejects(createToken(options), (error: Error) => {
        assert.ok(error instanceof UsageError, String(error));
        assert.match(error.message, message);
        return true;
      });
    }
  });
});

describe('failed authentications are slowed per address, within bounds', () => {
  test('three at once, then waits that double up to the cap; forgotten after a quiet quarter hour or a success; at most so many addresses kept', () => {
    let now = 0;
    const attempts = failedAttempts({ maxAddresses: 2, now: () => now });
    const delays = Array.from({ length: 9 }, () => attempts.failed('10.0.0.1').delayMs);
    assert.deepEqual(delays, [0, 0, 0, 250, 500, 1_000, 2_000, 4_000, 4_000]);
    assert.equal(attempts.failed('10.0.0.2').failures, 1, 'each address counts its own');
    now += 15 * 60_000;
    assert.equal(attempts.failed('10.0.0.1').failures, 1, 'forgotten after 15 quiet minutes');
    attempts.failed('10.0.0.1');
    attempts.succeeded('10.0.0.1');
    assert.equal(attempts.failed('10.0.0.1').failures, 1, 'forgotten at a success');
    attempts.failed('10.0.0.2');
    attempts.failed('10.0.0.3'); // a third address: the one failing least recently (10.0.0.1) is let go
    assert.equal(attempts.failed('10.0.0.1').failures, 1);
  });
});

describe('the admin API', { skip: needsStores }, () => {
  const prefix = `devplat-test:${randomUUID()}:`;
  const scratch = mkdtempSync(join(tmpdir(), 'devplat-admin-api-'));
  const tokens = operatorTokensFile(join(scratch, 'admin-tokens'));
  const issued: Record<string, string> = {};
  let platform: TestPlatform;
  let admin: RunningAdminApi;
  const prisma = () => platform.database.prisma;
  const records = async (targetId: string) =>
    (await prisma().auditRecord.findMany({ where: { targetId }, orderBy: { createdAt: 'asc' } })).map(
      ({ actorType, actorId, action, details }) => ({ actorType, actorId, action, details }),
    );
  const call$ = (method: string, path: string, options: Parameters<typeof adminCall>[3] = {}) =>
    adminCall(admin.url, method, path, options);
  /** The log lines of `running` that `match`, once at least `count` of them are written (within 2 s). */
  const logged = async (running: RunningAdminApi, match: (line: Record<string, unknown>) => boolean, count = 1) => {
    const lines = () => running.logLines().filter(match);
    await within(2_000, async () => lines().length >= count);
    return lines();
  };

  before(async () => {
    // The tokens the operators use, made as an operator makes them; a broken line among them.
    for (const [name, role] of [
      ['ops-alice', 'write'],
      ['ops-bob', 'read'],
    ] as const) {
      issued[name] = (await createToken({ name, role })).token;
      tokens.add(name, role, issued[name] as string, ['# operators of this test', 'ops-broken write']);
    }
    platform = await startTestPlatform(
      { REDIS_KEY_PREFIX: prefix, ADMIN_TOKENS_FILE: tokens.file, ADMIN_PORT: '0' },
      { webhookWorker: false },
    );
    admin = await startAdminApi({
      DATABASE_URL: platform.database.url as string,
      REDIS_URL: redisUrl as string,
      REDIS_KEY_PREFIX: prefix,
      ADMIN_TOKENS_FILE: tokens.file,
    });
  });
  after(async () => {
    await admin?.process.stop();
    await platform?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('its document is served on the admin listener at /admin/v1/openapi.yaml, without a token, as the file it is', async () => {
    const answer = await call$('GET', '/openapi.yaml');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers.get('content-type'), 'application/yaml; charset=utf-8');
    assert.equal(answer.text, readFileSync(adminApiDocumentPath(), 'utf8'));
    assert.equal((await call$('HEAD', '/openapi.yaml')).status, 200);
    assertProblem(await call$('POST', '/openapi.yaml', { token: issued['ops-alice'] }), 405, 'METHOD_NOT_ALLOWED');
  });

  test('the document: every example conforms to its schema, and its Problems are those of the catalogue', async () => {
    const validator = adminApiValidator();
    // biome-ignore lint/suspicious/noExplicitAny: the document is read freely
    const document = loadAdminApiDocument() as any;
    const errors: string[] = [];
    const visit = (node: unknown, where: string) => {
      if (typeof node !== 'object' || node === null) return;
      const object = node as Record<string, unknown>;
      if (typeof object.schema === 'object' && object.schema !== null) {
        const schema = object.schema as Record<string, unknown>;
        if ('example' in object)
          errors.push(...validator.checkValue(schema, object.example).map((e) => `${where}/example${e}`));
        for (const [name, example] of Object.entries((object.examples ?? {}) as Record<string, { value: unknown }>)) {
          errors.push(...validator.checkValue(schema, example.value).map((e) => `${where}/examples/${name}${e}`));
        }
      }
      for (const [key, child] of Object.entries(object))
        if (key !== 'example' && key !== 'examples') visit(child, `${where}/${key}`);
    };
    visit(document, '#');
    assert.deepEqual(errors, []);
    const variants = document.components.schemas.Problem.oneOf as { properties: Record<string, { const: unknown }> }[];
    for (const { properties } of variants) {
      const code = properties.code?.const as keyof typeof problemCodes;
      assert.ok(problemCodes[code], `${code} is a catalogue code`);
      assert.deepEqual(
        [properties.status?.const, properties.title?.const, properties.type?.const],
        [problemCodes[code].status, problemCodes[code].title, problemType(code)],
        code,
      );
    }
  });

  test('no token, a wrong one, or garbage: 401 with the bearer challenge, logged without the token, and slowed after three', async () => {
    const from = '127.0.0.5';
    const path = `/accounts/${encodeURIComponent('nobody@developer.test')}`;
    const unknown = (await createToken({ name: 'ops-nobody', role: 'write' })).token;
    const attempts: [string, Record<string, string>][] = [
      ['no token', {}],
      ['unknown token', { authorization: `Bearer ${unknown}` }],
      ['not an operator token', { authorization: 'Bearer hunter2-not-a-token' }],
      ['not an operator token', { authorization: `Bearer ${unknown}x` }],
      ['not an operator token', { authorization: 'Bearer' }],
    ];
    const took: number[] = [];
    for (const [, headers] of attempts) {
      const started = Date.now();
      const answer = await call$('GET', path, { headers, from });
      took.push(Date.now() - started);
      assertProblem(answer, 401, 'INVALID_TOKEN');
      assert.equal(answer.headers.get('www-authenticate'), 'Bearer realm="devplat-admin"');
    }
    // The fourth and fifth failures from this address waited 250 ms and 500 ms.
    assert.ok((took[3] as number) >= 250 && (took[4] as number) >= 500, `took ${took.join(', ')} ms`);
    const failures = (count: number) =>
      logged(admin, (line) => line.msg === 'admin API: authentication failed' && line.address === from, count);
    assert.deepEqual(
      (await failures(5)).map((line) => [line.reason, line.failures, line.delay_ms]),
      attempts.map(([reason], index) => [reason, index + 1, [0, 0, 0, 250, 500][index]]),
    );
    // What a failure's line says of the token: its prefix (when it has ours) and length, never more.
    const [, wrong, garbage] = await failures(5);
    assert.deepEqual([wrong?.token_prefix, wrong?.token_length], ['devplat_admin_', 57]);
    assert.deepEqual([garbage?.token_prefix, garbage?.token_length], [null, 19]);
    // A success from the address forgets its failures: the next one is answered at once again.
    assert.equal(
      (await call$('GET', '/accounts/nobody%40developer.test', { token: issued['ops-bob'], from })).status,
      404,
    );
    assertProblem(await call$('GET', path, { from }), 401, 'INVALID_TOKEN');
    assert.deepEqual((await failures(6)).at(-1)?.failures, 1);
    assert.doesNotMatch(JSON.stringify(admin.logLines()), new RegExp(`${unknown}|hunter2`));
  });

  test("a write token suspends an account: its app's token is refused at /cities on the very next call; the audit record names the operator; a second call changes nothing", async () => {
    const app = await createTestApp(prisma());
    const email = app.developer.email;
    const appToken = () =>
      call(platform.base, '/oauth/token', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(app.clientId, app.clientSecret),
        },
        body: 'grant_type=client_credentials',
      });
    const cities = (token: string) =>
      call(platform.base, '/cities?limit=100', { headers: { authorization: `Bearer ${token}` } });
    const token = (await appToken()).json.access_token as string;
    assert.equal((await cities(token)).status, 200);

    const shown = await call$('GET', `/accounts/${email.toUpperCase()}`, { token: issued['ops-bob'] });
    assert.equal(shown.status, 200);
    assert.deepEqual(
      [shown.json.id, shown.json.email, shown.json.status, shown.json.suspended_at, shown.json.apps],
      [app.developer.id, email, 'active', null, 1],
    );

    const alice = issued['ops-alice'];
    const suspended = await call$('POST', `/accounts/${email}/suspend`, {
      token: alice,
      body: { reason: 'ticket 42' },
    });
    assert.equal(suspended.status, 200);
    assert.equal(suspended.json.changed, true);
    assert.equal(suspended.json.account.status, 'suspended');
    assert.ok(suspended.json.account.suspended_at);
    assertProblem(await cities(token), 401, 'INVALID_TOKEN');
    // The token endpoint's cached app was told through Redis: no new token either.
    const refused = await appToken();
    assert.equal(refused.status, 401, refused.text);
    assert.equal(refused.json.error, 'invalid_client');
    const suspension = {
      actorType: 'operator',
      actorId: 'ops-alice',
      action: 'account.suspend',
      details: { email, reason: 'ticket 42' },
    };
    assert.deepEqual(await records(app.developer.id), [suspension]);
    const [line] = await logged(
      admin,
      (each) => each.msg === 'request' && each.path === `/admin/v1/accounts/${email}/suspend`,
    );
    assert.deepEqual(
      [line?.operator, line?.method, line?.status],
      ['ops-alice', 'POST', 200],
      'the request line names the operator',
    );

    const again = await call$('POST', `/accounts/${email}/suspend`, { token: alice });
    assert.deepEqual([again.status, again.json.changed, again.json.account.status], [200, false, 'suspended']);
    assert.equal((await records(app.developer.id)).length, 1, 'no second record');

    const reactivated = await call$('POST', `/accounts/${email}/reactivate`, { token: alice });
    assert.deepEqual([reactivated.json.changed, reactivated.json.account.status], [true, 'active']);
    assert.equal(reactivated.json.account.suspended_at, null);
    assert.equal((await cities(token)).status, 200);
    assert.equal((await appToken()).status, 200);
    const twice = await call$('POST', `/accounts/${email}/reactivate`, { token: alice, body: {} });
    assert.equal(twice.json.changed, false);
    assert.deepEqual(await records(app.developer.id), [
      suspension,
      { ...suspension, action: 'account.reactivate', details: { email, reason: null } },
    ]);
  });

  test('a read token reads but may not change: 403, nothing changed, nothing recorded', async () => {
    const app = await createTestApp(prisma());
    const bob = issued['ops-bob'];
    const denied = await call$('POST', `/accounts/${app.developer.email}/suspend`, {
      token: bob,
      body: { reason: 'x' },
    });
    assertProblem(denied, 403, 'ACCESS_DENIED');
    assert.match(denied.json.detail, /ops-bob is a read token/);
    assert.equal((await call$('GET', `/accounts/${app.developer.email}`, { token: bob })).json.status, 'active');
    assert.deepEqual(await records(app.developer.id), []);
    const [line] = await logged(admin, (each) => each.msg === 'request' && each.status === 403);
    assert.deepEqual([line?.operator, line?.error], ['ops-bob', 'ACCESS_DENIED']);
  });

  test('a write token disables a sandbox player: their token gets 403 ACCESS_DENIED on /me at the very next call; enable admits them again', async () => {
    const redirectUri = 'http://127.0.0.1:9/callback';
    const app = await createTestApp(prisma(), {
      scopes: ['city.public.read', 'profile.basic.read'],
      redirectUris: [redirectUri],
    });
    const player = await createPlayer(prisma(), app.developer.id);
    const request = await authorizationRequest(platform.base, app.clientId, redirectUri, 'profile.basic.read');
    const callback = await consentOverHttp(request.url, player);
    const tokens = await redeemCode(platform.base, app, callback, redirectUri, request.state, request.verifier);
    const me = () => call(platform.base, '/me', { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    assert.equal((await me()).status, 200);

    const shown = await call$('GET', `/players/${player.username}`, { token: issued['ops-bob'] });
    assert.deepEqual(shown.json.account, { id: app.developer.id, email: app.developer.email });
    const alice = issued['ops-alice'];
    const disabled = await call$('POST', `/players/${player.username}/disable`, {
      token: alice,
      body: { reason: 'reported' },
    });
    assert.deepEqual([disabled.json.changed, disabled.json.player.status], [true, 'disabled']);
    assertProblem(await me(), 403, 'ACCESS_DENIED');
    const again = await call$('POST', `/players/${player.username}/disable`, { token: alice });
    assert.deepEqual([again.json.changed, again.json.player.status], [false, 'disabled']);
    const enabled = await call$('POST', `/players/${player.username}/enable`, { token: alice });
    assert.deepEqual([enabled.json.changed, enabled.json.player.status], [true, 'active']);
    assert.equal((await me()).status, 200);
    const details = { username: player.username, account_email: app.developer.email, reason: 'reported' };
    assert.deepEqual(await records(player.player.id), [
      { actorType: 'operator', actorId: 'ops-alice', action: 'player.disable', details },
      { actorType: 'operator', actorId: 'ops-alice', action: 'player.enable', details: { ...details, reason: null } },
    ]);
  });

  test('a missing target is 404; an unknown path 404 and a wrong method 405 with Allow, as Problems', async () => {
    const alice = issued['ops-alice'];
    assertProblem(await call$('GET', '/accounts/nobody@developer.test', { token: alice }), 404, 'NOT_FOUND');
    assertProblem(await call$('POST', '/accounts/nobody@developer.test/suspend', { token: alice }), 404, 'NOT_FOUND');
    assertProblem(await call$('GET', '/players/nobody-at-all', { token: alice }), 404, 'NOT_FOUND');
    assertProblem(await call$('POST', '/players/nobody-at-all/enable', { token: alice }), 404, 'NOT_FOUND');
    for (const path of ['/nowhere', '/accounts/a@b.test/apps', '/accounts/a@b.test/', '/Accounts/a@b.test']) {
      assertProblem(await call$('GET', path, { token: alice }), 404, 'NOT_FOUND');
    }
    // Outside /admin/v1 too (no document path there to check it against).
    const root = await fetch(admin.url.replace('/admin/v1', '/'));
    assert.deepEqual([root.status, ((await root.json()) as { code: string }).code], [404, 'NOT_FOUND']);
    // Refused before the token is looked at: the method alone is wrong.
    const wrongMethod = await call$('DELETE', '/accounts/a@b.test');
    assertProblem(wrongMethod, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(wrongMethod.headers.get('allow'), 'GET, HEAD');
    const getOnPost = await call$('GET', '/players/someone/disable', { token: alice });
    assertProblem(getOnPost, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(getOnPost.headers.get('allow'), 'POST');
  });

  test('bad input is a Problem that says what is wrong, never a 500, and changes nothing', async () => {
    const app = await createTestApp(prisma());
    const path = `/accounts/${app.developer.email}/suspend`;
    const token = issued['ops-alice'];
    const cases: [Parameters<typeof adminCall>[3], string, number, string, RegExp][] = [
      [{ token, body: '{"reason": ' }, 'POST', 400, 'MALFORMED_REQUEST', /not valid JSON/],
      [{ token, body: { why: 'x' } }, 'POST', 400, 'INVALID_REQUEST', /Unknown member "why"\. Allowed: reason\./],
      [{ token, body: { reason: 7 } }, 'POST', 400, 'INVALID_REQUEST', /reason must be a string/],
      [{ token, body: { reason: 'x'.repeat(1001) } }, 'POST', 400, 'INVALID_REQUEST', /at most 1000 characters/],
      [{ token, body: '[]' }, 'POST', 400, 'INVALID_REQUEST', /must be a JSON object/],
      [{ token, body: { reason: 'a\u0000b' } }, 'POST', 400, 'INVALID_REQUEST', /no control character/],
      [
        { token, body: 'reason=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } },
        'POST',
        415,
        'UNSUPPORTED_MEDIA_TYPE',
        /Content-Type: application\/json/,
      ],
      [{ token, body: { reason: 'x'.repeat(20_000) } }, 'POST', 413, 'PAYLOAD_TOO_LARGE', /at most 16384 bytes/],
    ];
    for (const [options, method, status, code, detail] of cases) {
      const answer = await call$(method, path, options);
      assertProblem(answer, status, code);
      assert.match(answer.json.detail, detail);
    }
    const query = await call$('GET', `/accounts/${app.developer.email}?verbose=1`, { token });
    assertProblem(query, 400, 'INVALID_REQUEST');
    assert.match(query.json.detail, /Unknown query parameter "verbose"/);
    assertProblem(await call$('POST', `${path}?force=true`, { token }), 400, 'INVALID_REQUEST');
    for (const bad of ['/players/%00', `/accounts/${'x'.repeat(321)}`, '/accounts/a%0Ab@c.test/suspend']) {
      const answer = await call$(bad.endsWith('suspend') ? 'POST' : 'GET', bad, { token });
      assertProblem(answer, 400, 'INVALID_REQUEST');
      assert.match(answer.json.detail, /in the path must be 1 to \d+ characters/);
    }
    assert.equal((await call$('GET', `/accounts/${app.developer.email}`, { token })).json.status, 'active');
    assert.deepEqual(await records(app.developer.id), []);
  });

  test('a body in another charset than UTF-8 is refused with 415 and changes nothing; charset=utf-8 is taken', async () => {
    const app = await createTestApp(prisma());
    const path = `/accounts/${app.developer.email}/suspend`;
    const token = issued['ops-alice'];
    const body = { reason: 'ticket 42' };
    for (const contentType of ['application/json; charset=utf-16', 'application/json; charset="ISO-8859-1"']) {
      const refused = await call$('POST', path, { token, body, headers: { 'content-type': contentType } });
      assertProblem(refused, 415, 'UNSUPPORTED_MEDIA_TYPE');
      assert.equal(
        refused.json.detail,
        'The body must be UTF-8 JSON: send Content-Type: application/json with no charset, or charset=utf-8.',
      );
    }
    assert.deepEqual(await records(app.developer.id), []);
    const taken = await call$('POST', path, {
      token,
      body,
      headers: { 'content-type': 'application/json; charset=UTF-8' },
    });
    assert.equal(taken.status, 200, taken.text);
    assert.equal(taken.json.account.status, 'suspended');
  });

  test('a GET that carries a body is refused unread with 400; without one it is served', async () => {
    const app = await createTestApp(prisma());
    const token = issued['ops-alice'];
    const path = `/accounts/${app.developer.email}`;
    const notJson = 'x'.repeat(17 * 1024);
    const cases: Record<string, string>[] = [
      // Sent chunked, 17 KiB reaches the operation. (Announced over 16 KiB by its Content-Length, a
      // body never does: apiApp's maxBodyBytes refuses it first, 413.)
      { 'transfer-encoding': 'chunked' },
      { 'content-length': '1024' },
    ];
    for (const framing of cases) {
      const text = notJson.slice(0, Number(framing['content-length'] ?? notJson.length));
      const answer = await call$('GET', path, {
        token,
        body: text,
        headers: { 'content-type': 'text/plain', ...framing },
      });
      assertProblem(answer, 400, 'INVALID_REQUEST');
      assert.equal(answer.json.detail, 'This operation takes no body.');
    }
    const listing = await call$('GET', '/audit', { token, body: notJson, headers: { 'transfer-encoding': 'chunked' } });
    assertProblem(listing, 400, 'INVALID_REQUEST');
    const found = await call$('GET', path, { token });
    assert.equal(found.status, 200, found.text);
    assert.equal(found.json.email, app.developer.email);
  });

  test('a token removed from the file stops working within about two seconds, and a token added starts working, without a restart', async () => {
    const carol = (await createToken({ name: 'ops-carol', role: 'write' })).token;
    const path = '/accounts/nobody@developer.test';
    tokens.add('ops-carol', 'write', carol);
    await within(3_000, async () => (await call$('GET', path, { token: carol })).status === 404);
    tokens.remove('ops-carol');
    const took = await within(3_000, async () => (await call$('GET', path, { token: carol })).status === 401);
    assert.ok(took <= 2_000, `the removed token worked for ${took} ms`);
    assert.equal((await call$('GET', path, { token: issued['ops-alice'] })).status, 404, 'the other tokens still work');
  });

  test("the tokens file: a line that cannot be read is reported by its number and skipped; no log line holds a token or a token's hash", async () => {
    // Line 2 is "ops-broken write".
    const reported = await logged(admin, (line) => String(line.msg).includes('line 2 ignored'));
    assert.equal(reported[0]?.line, 2);
    const output = admin.process.output();
    for (const token of Object.values(issued)) {
      assert.ok(!output.includes(token), 'no token in the log');
      assert.ok(!output.includes(createHash('sha256').update(token).digest('hex')), 'no token hash in the log');
    }
    assert.doesNotMatch(output, /"level":50/, 'no error logged');
  });

  test("npm start's platform serves the same admin API on its own loopback listener", async () => {
    const url = platform.platform.urls['Admin API'] as string;
    assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/admin\/v1$/);
    const app = await createTestApp(prisma());
    const answer = await adminCall(url, 'GET', `/accounts/${app.developer.email}`, { token: issued['ops-bob'] });
    assert.deepEqual([answer.status, answer.json.id], [200, app.developer.id]);
    assertProblem(await adminCall(url, 'GET', `/accounts/${app.developer.email}`), 401, 'INVALID_TOKEN');
  });

  test('a missing tokens file: every token refused, said once; the file appearing lets its tokens in', async () => {
    const file = join(scratch, 'later-tokens');
    const late = operatorTokensFile(file);
    const second = await startAdminApi({
      DATABASE_URL: platform.database.url as string,
      REDIS_URL: redisUrl as string,
      REDIS_KEY_PREFIX: prefix,
      ADMIN_TOKENS_FILE: file,
    });
    try {
      const dave = (await createToken({ name: 'ops-dave', role: 'read' })).token;
      const path = '/accounts/nobody@developer.test';
      assertProblem(await adminCall(second.url, 'GET', path, { token: dave }), 401, 'INVALID_TOKEN');
      late.add('ops-dave', 'read', dave);
      await within(3_000, async () => (await adminCall(second.url, 'GET', path, { token: dave })).status === 404);
      const missing = await logged(second, (line) => line.error === 'ENOENT');
      assert.equal(missing.length, 1);
      assert.match(String(missing[0]?.msg), /does not exist: no operator token works/);
    } finally {
      assert.equal(await second.process.stop(), 0, 'drained to exit 0');
    }
  });

  test('the admin process answers its probes on the management port and drains to exit 0', async () => {
    const ready = await fetch(`${admin.management}/readyz`);
    assert.deepEqual(await ready.json(), {
      status: 'ready',
      checks: { postgresql: 'ok', schema: "ok: this build's schema", redis: 'ok' },
    });
    const metrics = await (await fetch(`${admin.management}/metrics`)).text();
    assert.match(
      metrics,
      /devplat_http_request_duration_seconds_count\{app="admin-api",route="\/admin\/v1\/accounts\/:email\/suspend",method="POST",status="200"\}/,
    );
    assert.equal(await admin.process.stop(), 0);
  });
});

describe('the admin process refuses to start without what it needs', () => {
  test('no DATABASE_URL, REDIS_URL or ADMIN_TOKENS_FILE: one line naming each, exit 78', async () => {
    await assert.rejects(
      startAdminApi({ ADMIN_PORT: String(await freePort()) }),
      /configuration error: the admin API needs DATABASE_URL .*, and REDIS_URL .*, and ADMIN_TOKENS_FILE/,
    );
    await assert.rejects(startAdminApi({ ADMIN_HOST: 'localhost' }), /ADMIN_HOST must be an IP address/);
  });
});
