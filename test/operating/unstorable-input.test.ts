// No input makes a 500 (issue 37). Every route of every listener the platform opens (the public API
// with auth's token endpoints, the player client, the console's JSON API and web UI, the admin API,
// the contract mock, the internal JWKS), read from the routers it serves so a route added is sent
// too, gets text PostgreSQL cannot store (NUL, a lone surrogate, invalid UTF-8 in a percent-escape)
// and times outside its range (year 0, year 300000) in each path parameter, query parameter, form
// field, JSON member and Basic credential it takes, with and without credentials. No answer is a
// 500, no log line is an error, and no value gets as far as the database boundary's backstop: each
// door refuses it first, as its contract says. First, the exact answers of the doors issue 37 names,
// and the admin command's.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadAdminApiDocument, loadConsoleApiDocument, loadContractDocument } from '@devplat/contract/openapi';
import { operatorTokensFile } from '@devplat/test/admin-api';
import { allowOverHttp } from '@devplat/test/connected-apps';
import { consoleCall, type Developer, registerDeveloper, signInToWeb } from '@devplat/test/console-api';
import { realPostgresUrl } from '@devplat/test/database';
import {
  anonymous,
  bearer,
  type Caller,
  documentedRequests,
  type Fixtures,
  type Outcome,
  send,
  sendAll,
} from '@devplat/test/fuzz-requests';
import { type Answer, assertProblem, jsonOf } from '@devplat/test/http';
import { authorizationRequest, basicAuth, type UserTokens } from '@devplat/test/oauth';
import { PageAgent } from '@devplat/test/page-agent';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';
import { runProcess } from '@devplat/test/process';
import { catalogue, type Operation } from '@devplat/test/route-catalogue';
import { unstorableText } from '@devplat/test/unstorable-values';
import { operatorToken } from '../../services/admin/src/create-token.ts';

const redisUrl = process.env.REDIS_URL?.trim() || null;
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';

/** The contract's own 503s: an area outside it, a result larger than the limit. */
const contract503s = new Set(['FEATURE_DISABLED', 'RESULT_TOO_LARGE']);

const scratch = mkdtempSync(join(tmpdir(), 'devplat-unstorable-'));
const tokens = operatorTokensFile(join(scratch, 'admin-tokens'));
const operator = operatorToken('ops-fuzz', 'write').token;
const logLines: Record<string, unknown>[] = [];
let platform: TestPlatform;
let developer: Developer;
let app: { clientId: string; clientSecret: string; secretId: string; redirectUri: string };
let player: { id: string; username: string; password: string };
let user: UserTokens;

before(async () => {
  if (skip) return;
  tokens.add('ops-fuzz', 'write', operator);
  platform = await startTestPlatform(
    {
      ADMIN_TOKENS_FILE: tokens.file,
      ADMIN_PORT: '0',
      LOG_LEVEL: 'warn',
      // Every door's sign-in is fuzzed with values that never sign in.
      SIGN_IN_ATTEMPTS: '100',
    },
    { logDestination: { write: (line: string) => void logLines.push(JSON.parse(line)) } },
  );
  developer = await registerDeveloper(platform.console);
  const redirectUri = 'http://127.0.0.1:9/callback';
  const created = await consoleCall(platform.console, 'POST', '/apps', {
    token: developer.token,
    body: { name: 'Fuzzed App', redirect_uris: [redirectUri], scopes: ['city.public.read', 'profile.basic.read'] },
  });
  assert.equal(created.status, 201, created.text);
  app = {
    clientId: created.json.app.client_id,
    clientSecret: created.json.client_secret,
    secretId: created.json.app.secrets[0].secret_id,
    redirectUri,
  };
  const made = await createPlayer(platform.database.prisma, developer.id);
  player = { id: made.player.id, username: made.username, password: made.password };
  user = await allowOverHttp(platform.base, { ...app, app: { redirectUris: [redirectUri] } }, player);
});
after(async () => {
  await platform?.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** A valid value for a path parameter, by its name (client_id, clientId, …); an unknown id else. */
function pathValue(name: string): string {
  const values: Record<string, string> = {
    clientid: app.clientId,
    secretid: app.secretId,
    email: developer.email,
    username: player.username,
    playerid: player.id,
    consentid: user.consentId,
  };
  return values[name.replace(/[^a-z0-9]/gi, '').toLowerCase()] ?? randomUUID();
}

const fixtures = (): Fixtures => ({ pathValue, client: app });

const formField = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? '';

/** The player client: a player signed in through its own sign-in form, or no one. */
function playerAgents(origin: string): PageAgent[] {
  const seeds = async () => [
    (await authorizationRequest(platform.base, app.clientId, app.redirectUri, 'city.public.read profile.basic.read'))
      .url,
  ];
  const signIn = async (agent: PageAgent) => {
    const page = await (await agent.fetch(`${origin}/signin`)).text();
    const response = await agent.fetch(`${origin}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: formField(page, 'csrf'),
        return_to: formField(page, 'return_to'),
        username: player.username,
        password: player.password,
      }).toString(),
    });
    assert.equal(response.status, 302, 'the player signs in');
  };
  return [
    new PageAgent('without credentials', origin, { start: async () => {}, seeds, signedIn: false, pathValue }),
    new PageAgent('signed in', origin, { start: signIn, seeds, signedIn: true, pathValue }),
  ];
}

/** The console's web UI: the developer signed in through its form, or no one. */
function consoleAgents(origin: string): PageAgent[] {
  const signIn = async (agent: PageAgent) => {
    const page = await (await agent.fetch(`${origin}/signin`)).text();
    const response = await agent.fetch(`${origin}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        email: developer.email,
        password: developer.password,
        csrf: formField(page, 'csrf'),
      }).toString(),
    });
    assert.equal(response.status, 303, 'the developer signs in');
  };
  const none = async () => [];
  return [
    new PageAgent('without credentials', origin, { start: async () => {}, seeds: none, signedIn: false, pathValue }),
    new PageAgent('signed in', origin, { start: signIn, seeds: none, signedIn: true, pathValue }),
  ];
}

/** Every listener's operations, each with where it is reached and who calls it. */
function listenerPlan() {
  const contract = loadContractDocument('1.1.0');
  const documents: Record<string, unknown[]> = {
    public: [contract],
    mock: [contract],
    console: [loadConsoleApiDocument()],
    admin: [loadAdminApiDocument()],
  };
  const origins: Record<string, string> = {
    public: new URL(platform.base).origin,
    'player client': platform.playerClient,
    console: platform.console,
  };
  return platform.platform.listeners.map((listener) => ({
    name: listener.name,
    origin: origins[listener.name] ?? listener.server.origin,
    operations: catalogue(listener.name, listener.routes ?? [], documents[listener.name] ?? []),
  }));
}

const basicCallerLabel = 'with Basic client credentials';

/** Who else calls an operation of a JSON API besides no one: the listener's credentials. */
function credentialsFor(listener: string, operation: Operation, developerSession: Caller): Caller[] {
  switch (listener) {
    case 'public':
      return [
        operation.basic
          ? {
              label: basicCallerLabel,
              headers: () => ({ authorization: basicAuth(app.clientId, app.clientSecret) }),
            }
          : bearer("with the player's token", () => user.accessToken),
      ];
    case 'console':
      return [developerSession];
    case 'admin':
      return [bearer('with an operator token', () => operator)];
    default:
      return [];
  }
}

/** Deletions last, so that what they end is not missed by the operations before them. */
const deletionsLast = (operations: Operation[]) =>
  operations.toSorted((a, b) => Number(a.method === 'DELETE') - Number(b.method === 'DELETE'));

/** The answer to a raw request, its body as text. */
async function answerTo(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: jsonOf(text) };
}

const oauthForm = { 'content-type': 'application/x-www-form-urlencoded' };
/** A well-formed client id no app has: what "unknown" answers. */
const unknownClientId = 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaa';

/** Status, the headers an OAuth client reads, and the body: two answers alike in all of these. */
const oauthAnswer = (answer: Answer) => ({
  status: answer.status,
  contentType: answer.headers.get('content-type'),
  challenge: answer.headers.get('www-authenticate'),
  body: answer.text,
});

describe('each door answers a value it cannot store as the contract says for one it does not know', { skip }, () => {
  const invalidClient = '{"error":"invalid_client","error_description":"client authentication failed"}';

  test('token and revocation: such a client id, in Basic or in the form, is 401 invalid_client, as an unknown one', async () => {
    for (const endpoint of ['/oauth/token', '/oauth/revoke']) {
      const fields = endpoint === '/oauth/token' ? 'grant_type=client_credentials' : 'token=anything';
      for (const bad of unstorableText) {
        const basic = (id: string) =>
          answerTo(`${platform.base}${endpoint}`, {
            method: 'POST',
            headers: { ...oauthForm, authorization: basicAuth(id, 'y') },
            body: fields,
          });
        const known = oauthAnswer(await basic(unknownClientId));
        assert.deepEqual(oauthAnswer(await basic(`svc_x${bad.escaped}`)), known, `${endpoint}: ${bad.label} in Basic`);
        const raw = Buffer.concat([Buffer.from('svc_x'), bad.raw as Buffer, Buffer.from(':y')]).toString('base64');
        const rawAnswer = await answerTo(`${platform.base}${endpoint}`, {
          method: 'POST',
          headers: { ...oauthForm, authorization: `Basic ${raw}` },
          body: fields,
        });
        assert.deepEqual(oauthAnswer(rawAnswer), known, `${endpoint}: ${bad.label} as raw bytes in Basic`);
        assert.equal(known.status, 401);
        assert.equal(known.body, invalidClient);

        const form = (id: string) =>
          answerTo(`${platform.base}${endpoint}`, {
            method: 'POST',
            headers: oauthForm,
            body: `${fields}&client_id=${id}&client_secret=y`,
          });
        const unknownInForm = oauthAnswer(await form(unknownClientId));
        assert.deepEqual(
          oauthAnswer(await form(`svc_x${bad.escaped}`)),
          unknownInForm,
          `${endpoint}: ${bad.label} in the form`,
        );
        assert.deepEqual([unknownInForm.status, unknownInForm.body], [401, invalidClient]);
      }
    }
  });

  test('token: such a code or refresh token is 400 invalid_grant, as an unknown one', async () => {
    const grant = (fields: string) =>
      answerTo(`${platform.base}/oauth/token`, {
        method: 'POST',
        headers: { ...oauthForm, authorization: basicAuth(app.clientId, app.clientSecret) },
        body: fields,
      });
    const code = (value: string) =>
      grant(
        `grant_type=authorization_code&code=${value}&redirect_uri=${encodeURIComponent(app.redirectUri)}&code_verifier=${'v'.repeat(43)}`,
      );
    const refresh = (value: string) => grant(`grant_type=refresh_token&refresh_token=${value}`);
    const unknownCode = oauthAnswer(await code('sva_unknown'));
    const unknownRefresh = oauthAnswer(await refresh('unknown.0.token'));
    assert.equal(unknownCode.status, 400);
    assert.equal(JSON.parse(unknownCode.body).error, 'invalid_grant');
    assert.equal(JSON.parse(unknownRefresh.body).error, 'invalid_grant');
    for (const bad of unstorableText) {
      assert.deepEqual(oauthAnswer(await code(`sva_x${bad.escaped}`)), unknownCode, `${bad.label} in the code`);
      assert.deepEqual(
        oauthAnswer(await refresh(`unknown${bad.escaped}`)),
        unknownRefresh,
        `${bad.label} in the refresh token`,
      );
    }
  });

  test('revocation: such a token is 200 with an empty body, as an unknown one', async () => {
    for (const bad of unstorableText) {
      for (const hint of ['', '&token_type_hint=refresh_token', '&token_type_hint=access_token']) {
        const answer = await answerTo(`${platform.base}/oauth/revoke`, {
          method: 'POST',
          headers: { ...oauthForm, authorization: basicAuth(app.clientId, app.clientSecret) },
          body: `token=x${bad.escaped}${hint}`,
        });
        assert.deepEqual(
          [answer.status, answer.text, answer.headers.get('content-type'), answer.headers.get('content-length')],
          [200, '', null, '0'],
          `${bad.label}${hint}`,
        );
      }
    }
  });

  test('the consent screen: such a client id gets the refusal page an unknown one gets, and nothing redirects', async () => {
    const { url } = await authorizationRequest(platform.base, app.clientId, app.redirectUri, 'profile.basic.read');
    const screen = async (clientId: string) => {
      const authorize = new URL(url);
      const query = authorize.search.replace(`client_id=${app.clientId}`, `client_id=${clientId}`);
      const answer = await answerTo(`${authorize.origin}${authorize.pathname}${query}`);
      const title = /<title>([^<]*)<\/title>/.exec(answer.text)?.[1];
      const message = /<p role="alert">([^<]*)<\/p>/.exec(answer.text)?.[1];
      return { status: answer.status, location: answer.headers.get('location'), title, message };
    };
    const unknown = await screen(unknownClientId);
    assert.deepEqual(unknown, {
      status: 400,
      location: null,
      title: 'This app cannot connect',
      message: 'The app is unknown or not available.',
    });
    for (const bad of unstorableText) assert.deepEqual(await screen(`svc_x${bad.escaped}`), unknown, bad.label);
  });

  test("the console: such an app id is the 404 of an app that does not exist or is not the developer's", async () => {
    const history = (clientId: string) =>
      consoleCall(platform.console, 'GET', `/apps/${clientId}/history`, { token: developer.token });
    const unknown = await history(unknownClientId);
    assertProblem(unknown, 404, 'NOT_FOUND');
    assert.equal(unknown.json.detail, `The app ${unknownClientId} does not exist or is not yours.`);
    const web = await signInToWeb(platform.console, developer);
    const page = async (clientId: string) => {
      const response = await web.get(`/apps/${clientId}`);
      const text = await response.text();
      return { status: response.status, message: /<p[^>]*>([^<]*does not exist[^<]*)<\/p>/.exec(text)?.[1] };
    };
    const unknownPage = await page(unknownClientId);
    assert.deepEqual(unknownPage, {
      status: 404,
      message: `The app ${unknownClientId} does not exist or is not yours.`,
    });
    for (const bad of unstorableText) {
      const answer = await history(`svc_x${bad.escaped}`);
      assertProblem(answer, 404, 'NOT_FOUND');
      assert.match(answer.json.detail, /^The app svc_x.+ does not exist or is not yours\.$/s, bad.label);
      const shown = await page(`svc_x${bad.escaped}`);
      assert.equal(shown.status, 404, bad.label);
      assert.match(shown.message ?? '', /^The app svc_x.+ does not exist or is not yours\.$/s, bad.label);
    }
  });

  test('the admin API: a time filter in year 0 or year 300000 is the 400 of a malformed time', async () => {
    const get = (path: string) =>
      answerTo(`${platform.platform.urls['Admin API']}${path}`, {
        headers: { authorization: `Bearer ${operator}` },
      });
    const malformed = await get('/audit?since=yesterday');
    assertProblem(malformed, 400, 'INVALID_REQUEST');
    for (const path of ['/accounts', '/apps', '/audit', '/audit/export']) {
      for (const [name, other] of [
        ['since', 'until=2030-01-01'],
        ['until', 'since=2020-01-01'],
      ] as const) {
        for (const value of ['0000-01-01', '0000-12-31T23:59:59Z', '+300000-01-01T00:00:00Z']) {
          const answer = await get(`${path}?${name}=${encodeURIComponent(value)}&${other}`);
          assertProblem(answer, 400, 'INVALID_REQUEST');
          assert.match(answer.json.detail, new RegExp(`${name} must be`), `${path} ${name}=${value}`);
        }
      }
    }
    const yearZero = await get('/audit?since=0000-01-01');
    assert.equal(yearZero.json.detail, 'since must be a time from the year 1 to 9999 (got "0000-01-01")');
  });

  test('the admin command: audit --since 0000-01-01 exits 65 and says why', async () => {
    const { DATABASE_URL: _database, REDIS_URL: _redis, ...rest } = process.env;
    const run = await runProcess(process.execPath, ['services/admin/src/main.ts', 'audit', '--since', '0000-01-01'], {
      env: { ...rest, DATABASE_URL: platform.database.url as string },
    }).done;
    assert.equal(run.code, 65, run.stderr);
    assert.equal(run.stdout, '');
    assert.equal(run.stderr, 'admin audit: since must be a time from the year 1 to 9999 (got "0000-01-01")\n');
  });
});

describe('no input makes a 500', { skip }, () => {
  test('every route of every listener, every parameter, with and without credentials: no 500, no error logged, no value at the database boundary', async () => {
    const plan = listenerPlan();
    assert.deepEqual(
      plan.map((listener) => listener.name).toSorted(),
      ['admin', 'console', 'internal', 'mock', 'player client', 'public'],
      'every listener is fuzzed',
    );
    const developerSession = bearer(
      'with a session',
      () => developer.token,
      async () => {
        const session = await consoleCall(platform.console, 'POST', '/sessions', {
          body: { email: developer.email, password: developer.password },
        });
        assert.equal(session.status, 201, session.text);
        developer.token = session.json.token;
      },
    );
    // In the platform's order, the admin API last: its suspensions would end what the others use.
    const outcomes: Outcome[] = [];
    for (const { name, origin, operations } of plan) {
      const pageSite = name === 'player client' || name === 'console';
      const api = operations.filter((operation) => !pageSite || operation.documented);
      for (const operation of deletionsLast(api)) {
        const callers = [anonymous, ...credentialsFor(name, operation, developerSession)];
        const basicCaller = callers.some((caller) => caller.label === basicCallerLabel);
        outcomes.push(...(await sendAll(documentedRequests(origin, operation, fixtures(), basicCaller), callers)));
      }
      if (!pageSite) continue;
      const pages = operations.filter((operation) => !operation.documented && !operation.path.startsWith('/api'));
      for (const agent of name === 'console' ? consoleAgents(origin) : playerAgents(origin)) {
        await agent.begin(pages);
        for (const operation of deletionsLast(pages)) {
          for (const request of agent.requests(operation)) outcomes.push(await send(request, agent));
        }
      }
    }
    assert.ok(outcomes.length > 3000, `${outcomes.length} requests sent`);

    const byRequest = new Map(outcomes.map((outcome) => [outcome.requestId, outcome.what]));
    const failures = [
      ...outcomes
        .filter((outcome) => outcome.status === 500 || (outcome.status >= 500 && !contract503s.has(outcome.code ?? '')))
        .map((outcome) => `${outcome.what}: ${outcome.status}${outcome.code ? ` ${outcome.code}` : ''}`),
      ...logLines
        .filter((line) => (line.level as number) >= 50 || line.msg === 'unstorable value reached the database boundary')
        .map(
          (line) =>
            `${byRequest.get(line.request_id as string) ?? 'no request'}: logged "${line.msg}" ${JSON.stringify(line.err ?? line.kind ?? '')}`,
        ),
    ];
    assert.deepEqual(failures, [], `${failures.length} of ${outcomes.length} answers failed`);
  });
});
