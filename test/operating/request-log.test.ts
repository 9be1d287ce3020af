// An app's request log, end to end on one platform: every call to the token and revocation
// endpoints, /cities and /me reaches the app's log off the request path with its operation, status,
// error code and the answer's own X-Request-Id; a wrong secret is attributed to the client id it
// claimed, apart from the app's calls and capped apart, so a stranger cannot push them out; the raw
// Redis values hold no token, secret or internal id; the console's API filters and pages it, streams
// it (Last-Event-ID resumes), and its web page shows it, linked from the app's page. Every console
// answer is checked against the console API's document (consoleCall).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { generateSigningKey } from '@devplat/config';
import type { RequestLogEntryView } from '@devplat/contract';
import { redisClientOf, redisStore } from '@devplat/kv';
import { allowOverHttp } from '@devplat/test/connected-apps';
import { consoleCall, type Developer, registerDeveloper, signInToWeb } from '@devplat/test/console-api';
import { type Answer, assertProblem, call } from '@devplat/test/http';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { eventually } from '@devplat/test/webhook-receiver';
import { decodeJwt, importJWK, SignJWT } from 'jose';

const redisUrl = process.env.REDIS_URL?.trim();
const prefix = `devplat-test:${randomUUID()}:`;
/** Small bounds, so that a few calls reach them. */
const maxEntries = 12;
const maxFailed = 4;
const signingKey = generateSigningKey();

let platform: TestPlatform;
let developer: Developer;
let stranger: Developer;

before(async () => {
  platform = await startTestPlatform({
    REDIS_KEY_PREFIX: prefix,
    REQUEST_LOG_MAX_ENTRIES: String(maxEntries),
    REQUEST_LOG_MAX_FAILED_AUTH: String(maxFailed),
    SIGNING_KEYS: JSON.stringify({ keys: [signingKey] }),
  });
  developer = await registerDeveloper(platform.console);
  stranger = await registerDeveloper(platform.console);
});
after(() => platform?.close());

type Entry = RequestLogEntryView;

/** GET /api{path} of the console as `who` (checked against the console API document). */
const consoleGet = (path: string, who: Developer | null = developer) =>
  consoleCall(platform.console, 'GET', path, who ? { token: who.token } : {});

/** Every entry of the app's log (`query` its filters), page after page of `limit`. */
async function wholeLog(clientId: string, query = '', limit = 200): Promise<Entry[]> {
  const entries: Entry[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams(query);
    params.set('limit', String(limit));
    if (cursor) params.set('cursor', cursor);
    const page = await consoleGet(`/apps/${clientId}/requests?${params}`);
    assert.equal(page.status, 200, page.text);
    entries.push(...page.json.data);
    cursor = page.json.next_cursor;
  } while (cursor);
  return entries;
}

/** The log's entries once every one of these request ids is in it. */
const loggedWith = (clientId: string, requestIds: string[]) =>
  eventually(async () => {
    const entries = await wholeLog(clientId);
    return requestIds.every((id) => entries.some((entry) => entry.request_id === id)) && entries;
  }, 5_000);

const entryOf = (entries: Entry[], answer: Answer) => {
  const id = answer.headers.get('x-request-id');
  const entry = entries.find((candidate) => candidate.request_id === id);
  assert.ok(entry, `the call answered with ${id} is in the log`);
  return entry;
};

async function newApp(owner = developer) {
  const created = await consoleCall(platform.console, 'POST', '/apps', {
    token: owner.token,
    body: {
      name: 'Logged App',
      redirect_uris: ['http://127.0.0.1:9/callback'],
      scopes: ['city.public.read', 'profile.basic.read'],
    },
  });
  assert.equal(created.status, 201, created.text);
  return {
    clientId: created.json.app.client_id as string,
    clientSecret: created.json.client_secret as string,
    app: { redirectUris: created.json.app.redirect_uris as string[] },
  };
}

function tokenCall(clientId: string, clientSecret: string) {
  return call(platform.base, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(clientId, clientSecret) },
    body: 'grant_type=client_credentials&scope=city.public.read',
  });
}

const bearer = (token: string) => ({ headers: { authorization: `Bearer ${token}` } });

describe("an app's request log", () => {
  let app: Awaited<ReturnType<typeof newApp>>;
  const secrets: string[] = [];
  let entries: Entry[];
  const answers: Record<string, Answer> = {};
  let forged: Answer;

  before(async () => {
    app = await newApp();
    const username = `log-${randomUUID().slice(0, 8)}`;
    const player = await consoleCall(platform.console, 'POST', '/sandbox-players', {
      token: developer.token,
      body: { username, password: 'player password', display_name: 'Logger' },
    });
    assert.equal(player.status, 201, player.text);

    answers.token = await tokenCall(app.clientId, app.clientSecret);
    assert.equal(answers.token.status, 200);
    const appToken = answers.token.json.access_token as string;
    answers.wrongSecret = await tokenCall(app.clientId, `${app.clientSecret}x`);
    assert.equal(answers.wrongSecret.status, 401);
    answers.cities = await call(platform.base, '/cities?limit=100', bearer(appToken));
    assert.equal(answers.cities.status, 200);
    answers.badQuery = await call(platform.base, '/cities?limit=0', bearer(appToken));
    assertProblem(answers.badQuery, 400, 'INVALID_QUERY');
    answers.appTokenAtMe = await call(platform.base, '/me', bearer(appToken));
    assertProblem(answers.appTokenAtMe, 403, 'USER_TOKEN_REQUIRED');
    // Signed with the platform's own key but expired: still the app's call. Forged: nobody's.
    const now = Math.floor(Date.now() / 1000);
    const expiredToken = await new SignJWT({ ...decodeJwt(appToken), iat: now - 600, exp: now - 300 })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: signingKey.kid })
      .sign(await importJWK({ ...signingKey, alg: 'EdDSA' }, 'EdDSA'));
    answers.expired = await call(platform.base, '/cities?limit=100', bearer(expiredToken));
    assertProblem(answers.expired, 401, 'INVALID_TOKEN');
    const [header, payload] = appToken.split('.');
    forged = await call(platform.base, '/cities?limit=100', bearer(`${header}.${payload}.${'A'.repeat(86)}`));
    assertProblem(forged, 401, 'INVALID_TOKEN');

    const user = await allowOverHttp(platform.base, app, { username, password: 'player password' });
    answers.me = await call(platform.base, '/me', bearer(user.accessToken));
    assert.equal(answers.me.status, 200);
    answers.revoke = await call(platform.base, '/oauth/revoke', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(app.clientId, app.clientSecret),
      },
      body: new URLSearchParams({ token: user.refreshToken }).toString(),
    });
    assert.equal(answers.revoke.status, 200);
    answers.revokedMe = await call(platform.base, '/me', bearer(user.accessToken));
    assertProblem(answers.revokedMe, 403, 'CONSENT_REVOKED');
    secrets.push(app.clientSecret, appToken, user.accessToken, user.refreshToken, user.consentId);

    entries = await loggedWith(
      app.clientId,
      Object.values(answers).map((answer) => answer.headers.get('x-request-id') as string),
    );
  });

  test('has every call with its operation, status, error code and the X-Request-Id it was answered with', () => {
    const seen = (name: string) => {
      const { operation, status, error, grant_type, client_authenticated } = entryOf(entries, answers[name] as Answer);
      return { operation, status, error, grant_type, client_authenticated };
    };
    const app = (operation: string, status: number, error: string | null, grant_type: string | null = null) => ({
      operation,
      status,
      error,
      grant_type,
      client_authenticated: true,
    });
    assert.deepEqual(seen('token'), app('token', 200, null, 'client_credentials'));
    assert.deepEqual(seen('wrongSecret'), {
      ...app('token', 401, 'invalid_client', 'client_credentials'),
      client_authenticated: false,
    });
    assert.deepEqual(seen('cities'), app('cities', 200, null));
    assert.deepEqual(seen('badQuery'), app('cities', 400, 'INVALID_QUERY'));
    assert.deepEqual(seen('expired'), app('cities', 401, 'INVALID_TOKEN'));
    assert.ok(
      !entries.some((entry) => entry.request_id === forged.headers.get('x-request-id')),
      'a forged token proves no app: in no log',
    );
    assert.deepEqual(seen('appTokenAtMe'), app('me', 403, 'USER_TOKEN_REQUIRED'));
    assert.deepEqual(seen('me'), app('me', 200, null));
    assert.deepEqual(seen('revoke'), app('revoke', 200, null));
    assert.deepEqual(seen('revokedMe'), app('me', 403, 'CONSENT_REVOKED'));
    const codeRedemption = entries.find((entry) => entry.grant_type === 'authorization_code');
    assert.equal(codeRedemption?.status, 200, 'the code redemption too');

    // A user token's pairwise subject, never another id; an app token's none.
    assert.equal(entryOf(entries, answers.me as Answer).subject, answers.me?.json.sub);
    assert.match(answers.me?.json.sub, /^ps_/);
    assert.equal(entryOf(entries, answers.cities as Answer).subject, null);
    for (const entry of entries) {
      assert.ok(entry.latency_ms >= 0 && entry.latency_ms < 5_000, `${entry.request_id}: ${entry.latency_ms} ms`);
      assert.ok(Math.abs(Date.parse(entry.at) - Date.now()) < 60_000, `${entry.request_id}: at ${entry.at}`);
    }
    const ids = entries.map((entry) => entry.id);
    assert.equal(new Set(ids).size, ids.length, 'each entry once');
    // Newest first as written (each process writes every 200 ms): by id, and so within a flush of time.
    const place = (id: string) => {
      const [ms, seq, tag] = id.split('-');
      return [Number(ms), Number(seq), tag === 'u' ? 1 : 0] as const;
    };
    const later = (a: string, b: string) => {
      const [x, y] = [place(a), place(b)];
      return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
    };
    for (const [index, entry] of entries.slice(1).entries()) {
      const newer = entries[index] as Entry;
      assert.ok(later(newer.id, entry.id) > 0, `${newer.id} before ${entry.id}`);
      assert.ok(Date.parse(entry.at) <= Date.parse(newer.at) + 1_000, 'and so by time');
    }
  });

  test('holds no token, secret or internal id: the raw Redis values', {
    skip: redisUrl ? false : 'needs REDIS_URL',
  }, async () => {
    const prisma = platform.platform.database.prisma;
    const stored = await prisma.app.findFirstOrThrow({ where: { clientId: app.clientId }, include: { secrets: true } });
    const consent = await prisma.consent.findFirstOrThrow({ where: { appId: stored.id } });
    const internal = [stored.id, stored.accountId, consent.id, consent.playerId, ...stored.secrets.map((s) => s.id)];
    const reader = redisStore(redisUrl as string, { prefix: '', timeoutMs: 2_000 });
    await reader.ready();
    try {
      const redis = redisClientOf(reader);
      assert.ok(redis);
      const keys = await redis.keys(`${prefix}request-log:*`);
      assert.deepEqual(
        keys.map((key) => key.slice(prefix.length)).toSorted(),
        [`request-log:${app.clientId}`, `request-log:${app.clientId}:unauthenticated`].toSorted(),
        "the app's two streams, named by its client id",
      );
      const values = (await Promise.all(keys.map((key) => redis.xrange(key, '-', '+'))))
        .flat()
        .map(([, fields]) => fields.join(' '));
      assert.ok(values.length >= Object.keys(answers).length);
      for (const value of values) {
        for (const secret of [...secrets, ...internal]) {
          assert.ok(!value.includes(secret), `a stored entry holds ${secret.slice(0, 8)}…: ${value}`);
        }
        assert.doesNotMatch(value, /eyJ|[0-9a-f]{8}-[0-9a-f]{4}-/, 'no JWT and no UUID');
      }
      assert.ok((await redis.ttl(keys[0] as string)) > 71 * 3600, 'kept for the retention time (72 h)');
    } finally {
      await reader.close();
    }
  });

  test('filters by status class, operation and error code, and pages newest first', async () => {
    const only = async (query: string) => wholeLog(app.clientId, query);
    assert.deepEqual(
      (await only('status=4xx')).map((entry) => entry.request_id).toSorted(),
      entries
        .filter((entry) => entry.status >= 400 && entry.status < 500)
        .map((entry) => entry.request_id)
        .toSorted(),
    );
    assert.ok((await only('status=2xx')).every((entry) => entry.status === 200));
    assert.deepEqual(await only('status=5xx'), []);
    const revokes = await only('operation=revoke');
    assert.deepEqual(
      revokes.map((entry) => entry.request_id),
      [answers.revoke?.headers.get('x-request-id')],
    );
    const invalidClient = await only('error=invalid_client&operation=token&status=4xx');
    assert.deepEqual(
      invalidClient.map((entry) => entry.request_id),
      [answers.wrongSecret?.headers.get('x-request-id')],
    );
    assert.deepEqual(await only('error=CONSENT_REVOKED&operation=token'), []);

    // Pages of three, then of two with a filter: together the whole log, in order, nothing twice.
    assert.deepEqual(await wholeLog(app.clientId, '', 3), entries);
    assert.deepEqual(
      await wholeLog(app.clientId, 'status=2xx', 2),
      entries.filter((entry) => entry.status === 200),
    );
    const first = await consoleGet(`/apps/${app.clientId}/requests?limit=3`);
    assert.equal(first.json.data.length, 3);
    assert.equal(first.json.next_cursor, first.json.data[2].id, 'the cursor is the last entry shown');
  });

  test('refuses a bad filter, a bad cursor, another developer and no session', async () => {
    const refusals: [string, RegExp][] = [
      ['status=3xx', /status must be one of 2xx, 4xx, 5xx/],
      ['operation=authorize', /operation must be one of token, revoke, cities, me/],
      ['error=nonsense', /error must be an OAuth error .* or a Problem code/],
      ['limit=0', /limit must be an integer from 1 to 200/],
      ['limit=201', /limit must be an integer from 1 to 200/],
      ['status=4xx&status=5xx', /status may appear once/],
      ['page=2', /Unknown query parameter page/],
      ['cursor=nonsense', /cursor is not one this listing gave/],
    ];
    for (const [query, detail] of refusals) {
      const answer = await consoleGet(`/apps/${app.clientId}/requests?${query}`);
      assert.equal(answer.status, 400, `${query}: ${answer.text}`);
      assert.equal(answer.json.code, 'INVALID_REQUEST');
      assert.match(answer.json.detail, detail, query);
    }
    const badAfter = await consoleGet(`/apps/${app.clientId}/requests/stream?after=x`);
    assert.equal(badAfter.status, 400);
    assert.match(badAfter.json.detail, /after must be the id of an entry of this log/);
    for (const path of [`/apps/${app.clientId}/requests`, `/apps/${app.clientId}/requests/stream`]) {
      const theirs = await consoleGet(path, stranger);
      assert.equal(theirs.status, 404, theirs.text);
      assert.equal(theirs.json.code, 'NOT_FOUND');
      assert.ok(!theirs.text.includes(entries[0]?.request_id as string), 'nothing of the log');
      assert.equal((await consoleGet(path, null)).status, 401);
    }
    assert.equal((await consoleGet('/apps/svc_aaaaaaaaaaaaaaaaaaaaaaaaaa/requests')).status, 404);
  });
});

test("a stranger's failed authentications are capped apart and never push the app's calls out", async () => {
  const app = await newApp();
  const calls: Answer[] = [];
  for (let i = 0; i < maxEntries + 3; i++) calls.push(await tokenCall(app.clientId, app.clientSecret));
  // Someone who knows only the client id, many times over; and a client id no app has.
  for (let i = 0; i < maxFailed * 5; i++) assert.equal((await tokenCall(app.clientId, 'guessed')).status, 401);
  const unknownClient = `svc_${'z'.repeat(26)}`;
  assert.equal((await tokenCall(unknownClient, 'guessed')).status, 401);
  const last = await tokenCall(app.clientId, app.clientSecret);
  calls.push(last);

  const entries = await eventually(async () => {
    const all = await wholeLog(app.clientId);
    return all.some((entry) => entry.request_id === last.headers.get('x-request-id')) && all;
  }, 5_000);
  const own = entries.filter((entry) => entry.client_authenticated);
  const failed = entries.filter((entry) => !entry.client_authenticated);
  assert.equal(own.length, maxEntries, `the newest ${maxEntries} of the app's own calls`);
  assert.deepEqual(
    own.map((entry) => entry.request_id),
    calls
      .slice(-maxEntries)
      .map((answer) => answer.headers.get('x-request-id'))
      .toReversed(),
    'the newest ones, none pushed out by the failures',
  );
  assert.equal(failed.length, maxFailed, `the newest ${maxFailed} failed authentications, apart`);
  assert.ok(failed.every((entry) => entry.error === 'invalid_client' && entry.status === 401));
  if (redisUrl) {
    const reader = redisStore(redisUrl, { prefix: '', timeoutMs: 2_000 });
    await reader.ready();
    try {
      const keys = await redisClientOf(reader)?.keys(`${prefix}request-log:*${unknownClient}*`);
      assert.deepEqual(keys, [], 'a client id no app has costs no key');
    } finally {
      await reader.close();
    }
  }
});

test('the stream sends each new matching call within a second, and resumes after Last-Event-ID', async () => {
  const app = await newApp();
  const stream = async (headers: Record<string, string> = {}) => {
    const stop = new AbortController();
    const response = await fetch(`${platform.console}/api/apps/${app.clientId}/requests/stream?status=4xx`, {
      headers: { authorization: `Bearer ${developer.token}`, ...headers },
      signal: stop.signal,
    });
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    return {
      /** The next `event: request` message's id and data, within `ms`. */
      async next(ms = 1_000) {
        const deadline = Date.now() + ms;
        for (;;) {
          const match = /id: (\S+)\nevent: request\ndata: (.+)\n\n/.exec(text);
          if (match) {
            text = text.slice((match.index ?? 0) + match[0].length);
            return { id: match[1] as string, entry: JSON.parse(match[2] as string) as Entry };
          }
          const left = deadline - Date.now();
          assert.ok(left > 0, `no request event within ${ms} ms: ${text}`);
          const chunk = await Promise.race([
            reader.read(),
            new Promise<null>((resolve) => setTimeout(() => resolve(null), left)),
          ]);
          if (chunk?.value) text += new TextDecoder().decode(chunk.value);
        }
      },
      close: () => stop.abort(),
    };
  };
  const first = await stream();
  try {
    assert.equal((await tokenCall(app.clientId, app.clientSecret)).status, 200);
    const failing = await tokenCall(app.clientId, 'wrong secret');
    const sent = Date.now();
    const { id, entry } = await first.next();
    assert.ok(Date.now() - sent < 1_000);
    assert.equal(entry.request_id, failing.headers.get('x-request-id'), 'the failing call, not the success before it');
    assert.equal(entry.error, 'invalid_client');
    assert.equal(entry.id, id);
    first.close();

    // Gone for a moment: a call then, and the reconnection resumes after the last id seen.
    const missed = await tokenCall(app.clientId, 'wrong again');
    const second = await stream({ 'last-event-id': id });
    try {
      assert.equal((await second.next(2_000)).entry.request_id, missed.headers.get('x-request-id'));
    } finally {
      second.close();
    }
  } finally {
    first.close();
  }
});

describe('the web page', () => {
  const webSession = async (who: Developer) => (await signInToWeb(platform.console, who)).get;

  test("shows the log with its filters and pages, linked from the app's page", async () => {
    const app = await newApp();
    const ok = await tokenCall(app.clientId, app.clientSecret);
    const refused = await tokenCall(app.clientId, 'wrong');
    await loggedWith(
      app.clientId,
      [ok, refused].map((answer) => answer.headers.get('x-request-id') as string),
    );
    const get = await webSession(developer);

    const appPage = await (await get(`/apps/${app.clientId}`)).text();
    assert.ok(appPage.includes(`href="/apps/${app.clientId}/requests"`), "the app's page links its request log");
    assert.ok(appPage.includes(`href="/apps/${app.clientId}/history"`), 'and its history');

    const response = await get(`/apps/${app.clientId}/requests`);
    assert.equal(response.status, 200);
    const page = await response.text();
    assert.match(page, /<h1>Request log of Logged App<\/h1>/);
    assert.match(page, /<form method="get" action="\/apps\/svc_\w+\/requests"/);
    for (const answer of [ok, refused]) assert.ok(page.includes(answer.headers.get('x-request-id') as string));
    assert.match(page, /<code>invalid_client<\/code>/);
    assert.match(page, /client authentication failed/);
    assert.match(
      page,
      /<time datetime="[^"]+" title="[^"]+">\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}:\d{2} UTC<\/time>/,
    );
    assert.ok(!page.includes(app.clientSecret));

    const filtered = await (await get(`/apps/${app.clientId}/requests?status=4xx&operation=&error=`)).text();
    assert.ok(filtered.includes(refused.headers.get('x-request-id') as string));
    assert.ok(!filtered.includes(ok.headers.get('x-request-id') as string), 'a 200 is not a 4xx');
    assert.match(filtered, /<option value="4xx" selected>4xx<\/option>/, 'the form shows the filter given');

    const paged = await (await get(`/apps/${app.clientId}/requests?limit=1`)).text();
    const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(paged)?.[1]?.replaceAll('&amp;', '&');
    assert.ok(older, 'an Older link');
    const second = await (await get(older)).text();
    assert.ok(second.includes(ok.headers.get('x-request-id') as string), 'the older call on the next page');
    assert.ok(second.includes(`href="/apps/${app.clientId}/requests?limit=1"`), 'and a way back to the newest');

    const bad = await get(`/apps/${app.clientId}/requests?status=9xx`);
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /status must be one of 2xx, 4xx, 5xx/);
    assert.equal((await (await webSession(stranger))(`/apps/${app.clientId}/requests`)).status, 404);
  });
});
