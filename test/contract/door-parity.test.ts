// What an app meets at the edges of the contract, at whichever door this run uses (DEVPLAT_TEST_DOOR:
// `npm start`'s own listeners, or the topology's nginx gateway in front of them): the gateway's own
// refusals answer as the services do, and empty answers are empty.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp, createNamedApp } from '@devplat/test/connected-apps';
import { type Answer, assertProblem, call, jsonOf } from '@devplat/test/http';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform, testDoor } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';
import { eventually } from '@devplat/test/webhook-receiver';

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform.close());
const prisma = () => platform.platform.database.prisma;

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const twoMiB = `token=${'x'.repeat(2 * 1024 * 1024)}`;

/** A Problem answer, read without the contract check of `call` (the operation may not exist). */
async function problemAt(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  const text = await response.text();
  return { status: response.status, headers: response.headers, text, json: jsonOf(text) };
}

/** The contract's common headers, as every Problem and metadata answer carries them. */
function assertCommonHeaders(headers: Headers) {
  assert.match(headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  assert.equal(headers.get('x-service-api-version'), '1.0');
  assert.equal(headers.get('cache-control'), 'no-store');
}

describe(`oversized requests (${testDoor} door)`, () => {
  for (const operation of ['/oauth/token', '/oauth/revoke']) {
    test(`a 2 MiB form to ${operation} is the contract's 400 invalid_request (OAuthError)`, async () => {
      const answer = await call(platform.base, operation, { method: 'POST', headers: form, body: twoMiB });
      assert.equal(answer.status, 400, answer.text);
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
      assert.deepEqual(Object.keys(answer.json).sort(), ['error', 'error_description']);
      assert.equal(answer.json.error, 'invalid_request');
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    });
  }

  test('a 2 MiB body to a Problem operation is 413 PAYLOAD_TOO_LARGE', async () => {
    const answer = await problemAt(`${platform.base}/cities`, { method: 'POST', headers: form, body: twoMiB });
    assertProblem(answer, 413, 'PAYLOAD_TOO_LARGE');
    assertCommonHeaders(answer.headers);
  });

  test('an 8 KiB bearer token on /me is 401 INVALID_TOKEN with a Bearer challenge', async () => {
    const answer = await call(platform.base, '/me', { headers: { authorization: `Bearer ${'a'.repeat(8192)}` } });
    assertProblem(answer, 401, 'INVALID_TOKEN');
    assertCommonHeaders(answer.headers);
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer /);
  });

  for (const size of [20_000, 40_000]) {
    test(`a ${size / 1000} KB URL is 431 HEADERS_TOO_LARGE`, async () => {
      const answer = await problemAt(`${platform.base}/cities?limit=${'1'.repeat(size)}`);
      assertProblem(answer, 431, 'HEADERS_TOO_LARGE');
      assertCommonHeaders(answer.headers);
    });
  }

  test('a 40 KB header line is 431 HEADERS_TOO_LARGE', async () => {
    const answer = await problemAt(`${platform.base}/capabilities`, { headers: { 'x-padding': 'p'.repeat(40_000) } });
    assertProblem(answer, 431, 'HEADERS_TOO_LARGE');
    assertCommonHeaders(answer.headers);
  });

  test('TRACE (which nginx refuses itself) is 405 with Allow on an operation, 404 elsewhere', async () => {
    // fetch refuses to send TRACE: node:http does.
    const trace = async (origin: string, path: string) => {
      const raw = await rawRequest(origin, path, { method: 'TRACE' });
      return { ...raw, json: jsonOf(raw.text) } as Answer;
    };
    const token = await trace(platform.origin, '/developer/v1/oauth/token');
    assertProblem(token, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(token.headers.get('allow'), 'POST');
    assertCommonHeaders(token.headers);
    const cities = await trace(platform.origin, '/developer/v1/cities');
    assertProblem(cities, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(cities.headers.get('allow'), 'GET, HEAD');
    assertProblem(await trace(platform.origin, '/nowhere'), 404, 'NOT_FOUND');
  });

  test('an unknown path is 404 NOT_FOUND, at any host name', async () => {
    const answer = await call(platform.origin, '/nowhere');
    assertProblem(answer, 404, 'NOT_FOUND');
    const elsewhere = await rawRequest(platform.origin, '/developer/v1/nowhere', { host: 'unknown.example' });
    assert.equal(elsewhere.status, 404);
    assert.equal(JSON.parse(elsewhere.text).code, 'NOT_FOUND');
  });

  test('the player client and the console refuse an oversized request with an HTML page', async () => {
    for (const site of [platform.playerClient, platform.console]) {
      const response = await fetch(`${site}/?q=${'q'.repeat(40_000)}`);
      assert.equal(response.status, 431, site);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/, site);
      assert.match(await response.text(), /<h1>That did not work<\/h1>/, site);
      assert.match(response.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
    }
  });
});

describe(`request ids (${testDoor} door)`, () => {
  test("a client's own X-Request-ID is never taken or echoed", async () => {
    const forged = `req_${'0'.repeat(32)}`;
    const answer = await call(platform.base, '/capabilities', { headers: { 'x-request-id': forged } });
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
    assert.notEqual(answer.headers.get('x-request-id'), forged);
  });

  // Registered in the gateway's pass only: the direct door has no gateway log.
  if (testDoor !== 'gateway') return;
  test("behind the gateway, one id names the request in the gateway's log and the service's answer", async () => {
    if (!platform.gateway) throw new Error('the gateway pass started no gateway');
    const answer = await call(platform.base, '/capabilities');
    const id = answer.headers.get('x-request-id') as string;
    const accessLog = join(dirname(platform.gateway.configFile), 'access.log');
    const line = await eventually(() =>
      readFileSync(accessLog, 'utf8')
        .split('\n')
        .find((l) => l.includes(id)),
    );
    assert.match(line, /"GET \/developer\/v1\/capabilities" 200 /);
  });
});

/** A request as node:http sends it: any method, a Host of our choosing (fetch allows neither). */
function rawRequest(
  origin: string,
  path: string,
  { method = 'GET', host }: { method?: string; host?: string } = {},
): Promise<{ status: number; headers: Headers; text: string }> {
  const url = new URL(origin);
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      { host: url.hostname, port: url.port, path, method, headers: host ? { host } : {} },
      (response) => {
        let text = '';
        response.on('data', (chunk) => {
          text += chunk;
        });
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers)) {
            if (typeof value === 'string') headers.set(name, value);
          }
          resolve({ status: response.statusCode ?? 0, headers, text });
        });
      },
    );
    request.once('error', reject);
    request.end();
  });
}

describe(`empty answers are empty (${testDoor} door)`, () => {
  async function revoke(client: { clientId: string; clientSecret: string }, token: string) {
    const answer = await call(platform.base, '/oauth/revoke', {
      method: 'POST',
      headers: { ...form, authorization: basicAuth(client.clientId, client.clientSecret) },
      body: new URLSearchParams({ token }),
    });
    assert.equal(answer.status, 200, answer.text);
    assert.equal(answer.text, '');
    assert.equal(answer.headers.get('content-type'), null, 'an empty body is labelled nothing, never JSON');
    assert.equal(answer.headers.get('content-length'), '0');
    return answer;
  }

  test('revoking an app token, a user token, a refresh token, an unknown and a JWT-shaped string', async () => {
    const app = await createNamedApp(prisma(), 'Empty answers');
    const player = await createPlayer(prisma(), app.developer.id);
    const tokens = await allowOverHttp(platform.base, app, player);
    const appToken = await call(platform.base, '/oauth/token', {
      method: 'POST',
      headers: { ...form, authorization: basicAuth(app.clientId, app.clientSecret) },
      body: new URLSearchParams({ grant_type: 'client_credentials' }),
    });
    assert.equal(appToken.status, 200, appToken.text);
    const jwtShaped = `${Buffer.from('{"alg":"EdDSA","typ":"at+jwt"}').toString('base64url')}.e30.c2ln`;

    await revoke(app, appToken.json.access_token);
    await revoke(app, tokens.accessToken);
    await revoke(app, tokens.refreshToken);
    await revoke(app, 'not-a-token-we-issued');
    await revoke(app, jwtShaped);

    const me = await call(platform.base, '/me', { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    assertProblem(me, 403, 'CONSENT_REVOKED');
  });
});
