import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generateSigningKey, loadConfig, type SigningKey } from '@devplat/config';
import { openDatabase } from '@devplat/db';
import { createTestDatabase, type TestDatabase } from '@devplat/test/database';
import { assertProblem, call, problemMembers } from '@devplat/test/http';
import { createLocalJWKSet, importJWK, SignJWT } from 'jose';
import { remoteKeys, tokenVerifier } from '../src/index.ts';
import { type RunningApi, startApi } from './support.ts';

let database: TestDatabase;
let api: RunningApi;
before(async () => {
  database = await createTestDatabase();
  api = await startApi(database);
});
after(async () => {
  await api.close();
  await database.drop();
});

/** Sends raw bytes and returns the raw answer (for requests fetch refuses to make). */
function raw(origin: string, request: string): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    let answer = '';
    socket.on('data', (chunk) => {
      answer += chunk.toString();
    });
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

function parseRaw(answer: string) {
  const [head = '', body = ''] = answer.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const headers = new Headers(headerLines.map((line) => line.split(/:\s*/, 2) as [string, string]));
  return { status: Number(statusLine.split(' ')[1]), headers, body, json: JSON.parse(body) };
}

const publicPaths = ['/capabilities', '/regions', '/status'];

describe('wrong methods', () => {
  for (const path of publicPaths) {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      test(`${method} ${path} answers 405 Problem with Allow`, async () => {
        const answer = await call(api.base, path, { method, body: method === 'OPTIONS' ? undefined : 'x=1' });
        assertProblem(answer, 405, 'METHOD_NOT_ALLOWED');
        assert.equal(answer.headers.get('allow'), 'GET, HEAD');
        assert.equal(answer.json.instance, `/developer/v1${path}`);
      });
    }
    test(`HEAD ${path} answers like GET without a body`, async () => {
      const response = await fetch(`${api.base}${path}`, { method: 'HEAD' });
      assert.equal(response.status, 200);
      assert.equal(await response.text(), '');
      assert.equal(response.headers.get('x-service-api-version'), '1.0');
    });
  }
});

describe('unknown paths', () => {
  for (const path of [
    '/unknown',
    '/',
    '',
    '/capabilities/',
    '/CAPABILITIES',
    '/capabilities/extra',
    '/%ZZ',
    `/${'a'.repeat(8000)}`,
    '/../capabilities',
  ]) {
    test(`${JSON.stringify(path.slice(0, 30))} under /developer/v1 answers 404 Problem`, async () => {
      assertProblem(await call(api.base, path), 404, 'NOT_FOUND');
    });
  }
  test('paths outside /developer/v1 answer 404 Problem too', async () => {
    for (const path of ['/', '/developer/v2/capabilities', '/favicon.ico']) {
      assertProblem(await call(api.origin, path), 404, 'NOT_FOUND');
    }
  });
  test('an unknown path with a wrong method is still 404', async () => {
    assertProblem(await call(api.base, '/nothing-here', { method: 'DELETE' }), 404, 'NOT_FOUND');
  });
});

describe('areas outside the contract', () => {
  for (const path of [
    '/commerce',
    '/commerce/orders/42',
    '/entitlements',
    '/game-sessions/abc',
    '/webhooks',
    '/production-credentials',
  ]) {
    for (const method of ['GET', 'POST']) {
      test(`${method} ${path} answers FEATURE_DISABLED`, async () => {
        assertProblem(await call(api.base, path, { method }), 503, 'FEATURE_DISABLED');
      });
    }
  }
});

describe('query strings and headers', () => {
  test('a query string on a public operation is ignored: the operations take no parameters', async () => {
    for (const path of publicPaths) {
      const answer = await call(api.base, `${path}?limit=5&limit=7&cursor=x&%ZZ=1`);
      assert.equal(answer.status, 200);
    }
  });

  test('an incoming X-Request-ID is not trusted: the server makes its own', async () => {
    const answer = await call(api.base, '/capabilities', { headers: { 'X-Request-ID': 'req_chosen-by-the-caller' } });
    assert.match(answer.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  });

  test('headers over 16 KiB answer 431 Problem with the common headers', async () => {
    const answer = parseRaw(
      await raw(
        api.origin,
        `GET /developer/v1/capabilities HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      ),
    );
    assert.equal(answer.status, 431);
    assert.equal(answer.headers.get('content-type'), 'application/problem+json');
    assert.equal(answer.json.code, 'HEADERS_TOO_LARGE');
    assert.equal(answer.json.request_id, answer.headers.get('x-request-id'));
    assert.equal(answer.headers.get('x-service-api-version'), '1.0');
    assert.equal(answer.headers.get('cache-control'), 'no-store');
  });

  test('a request that is not HTTP answers 400 Problem', async () => {
    const answer = parseRaw(await raw(api.origin, 'HELLO THERE\r\n\r\n'));
    assert.equal(answer.status, 400);
    assert.equal(answer.json.code, 'MALFORMED_REQUEST');
    assert.deepEqual(Object.keys(answer.json).sort(), problemMembers);
  });
});

/** An at+jwt signed with `key`; `shape` sets the registered claims. */
async function signToken(key: SigningKey, shape: (jwt: SignJWT) => SignJWT, claims: Record<string, string>) {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: key.kid });
  return shape(jwt).sign(await importJWK({ ...key, alg: 'EdDSA' }, 'EdDSA'));
}

async function assertBothUnavailable(base: string, token: string) {
  for (const path of ['/cities', '/me']) {
    assertProblem(
      await call(base, path, { headers: { authorization: `Bearer ${token}` } }),
      503,
      'SERVICE_UNAVAILABLE',
    );
  }
}

describe('fail closed', () => {
  test('PostgreSQL unreachable during the liveness check of a valid token: 503, never a 200', async () => {
    const key = generateSigningKey();
    const config = loadConfig({});
    const verifier = tokenVerifier(
      config,
      createLocalJWKSet({ keys: [{ kty: 'OKP', crv: 'Ed25519', x: key.x, kid: key.kid }] }),
    );
    const unreachable = await openDatabase({ databaseUrl: 'postgresql://postgres@127.0.0.1:1/none' });
    const server = await startApi(unreachable, {}, { tokens: verifier });
    try {
      const token = await signToken(
        key,
        (jwt) =>
          jwt
            .setIssuer(config.baseUrl.href)
            .setAudience(config.baseUrl.href)
            .setSubject('ps_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa')
            .setJti('jti-1')
            .setIssuedAt()
            .setExpirationTime('5m'),
        {
          client_id: 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaa',
          scope: 'city.public.read profile.basic.read',
          env: 'sandbox',
          csid: '00000000-0000-4000-8000-000000000000',
          cns: '00000000-0000-4000-8000-000000000001',
        },
      );
      await assertBothUnavailable(server.base, token);
    } finally {
      await server.close();
      await unreachable.close();
    }
  });

  test('the auth service key set unreachable: /cities and /me answer 503, never 401 or 200', async () => {
    const config = loadConfig({ AUTH_INTERNAL_URL: 'http://127.0.0.1:1' });
    const server = await startApi(
      database,
      { AUTH_INTERNAL_URL: 'http://127.0.0.1:1' },
      { tokens: tokenVerifier(config, remoteKeys(config)) },
    );
    try {
      const key = generateSigningKey();
      const token = await signToken(key, (jwt) => jwt, { scope: 'city.public.read' });
      await assertBothUnavailable(server.base, token);
    } finally {
      await server.close();
    }
  });

  test('PostgreSQL unreachable: /regions answers 503 Problem, nothing else', async () => {
    const unreachable = await openDatabase({ databaseUrl: 'postgresql://postgres@127.0.0.1:1/none' });
    const server = await startApi(unreachable);
    try {
      const answer = await call(server.base, '/regions');
      assertProblem(answer, 503, 'SERVICE_UNAVAILABLE');
      // The operations that need no database keep answering.
      assert.equal((await call(server.base, '/capabilities')).status, 200);
      assert.equal((await call(server.base, '/status')).status, 200);
    } finally {
      await server.close();
      await unreachable.close();
    }
  });
});

describe('slow clients', () => {
  test('headers that never finish answer 408 Problem', { timeout: 30_000 }, async () => {
    const answer = parseRaw(await raw(api.origin, 'GET /developer/v1/status HTTP/1.1\r\nHost: x\r\n'));
    assert.equal(answer.status, 408);
    assert.equal(answer.json.code, 'REQUEST_TIMEOUT');
    assert.equal(answer.headers.get('x-service-api-version'), '1.0');
  });
});
