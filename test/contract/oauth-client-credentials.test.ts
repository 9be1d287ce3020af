// An app developer's view of the token, revocation and metadata endpoints, through oauth4webapi
// (a real RFC-compliant client) where a client library has a say, and raw HTTP for bad input.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { appDirectory } from '@devplat/app-directory';
import { generateSigningKey } from '@devplat/config';
import { addSecret, disableApp, revokeSecret } from '@devplat/domain/apps';
import { suspendAccount } from '@devplat/domain/workflows';
import { createTestApp } from '@devplat/test/apps';
import { assertProblem, call } from '@devplat/test/http';
import { basicAuth, discover, insecure } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oauth from 'oauth4webapi';

let platform: TestPlatform;
let as: oauth.AuthorizationServer;

before(async () => {
  platform = await startTestPlatform();
  as = await discover(platform.base);
});
after(() => platform.close());

const prisma = () => platform.platform.database.prisma;
// Changes go through the registry, which tells every process's app directory.
const directory = () => appDirectory(prisma(), platform.platform.store);
const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();

async function token(headers: Record<string, string>, body: string) {
  return call(platform.base, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body,
  });
}

async function appToken(clientId: string, clientSecret: string, scope?: string) {
  const answer = await token(
    { authorization: basicAuth(clientId, clientSecret) },
    form({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }),
  );
  assert.equal(answer.status, 200, answer.text);
  return answer.json.access_token as string;
}

function assertOAuthError(answer: Awaited<ReturnType<typeof call>>, status: number, error: string) {
  assert.equal(answer.status, status, answer.text);
  assert.equal(answer.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.deepEqual(Object.keys(answer.json).sort(), ['error', 'error_description']);
  assert.equal(answer.json.error, error);
}

describe('authorization server metadata', () => {
  test('discovery finds the exact RFC 8414 document at both locations', async () => {
    const contract = await call(platform.base, '/.well-known/oauth-authorization-server');
    const rfc8414 = await fetch(`${platform.origin}/.well-known/oauth-authorization-server/developer/v1`);
    assert.deepEqual(await rfc8414.json(), contract.json);
    assert.deepEqual(contract.json, {
      issuer: platform.base,
      authorization_endpoint: `${platform.playerClient}/oauth/authorize`,
      token_endpoint: `${platform.base}/oauth/token`,
      revocation_endpoint: `${platform.base}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['city.public.read', 'profile.basic.read'],
    });
    assert.equal(as.issuer, platform.base);
  });

  test('nothing else of the provider is reachable: no OIDC discovery, no public JWKS', async () => {
    for (const path of [
      '/.well-known/openid-configuration',
      '/oauth/jwks',
      '/jwks',
      '/oauth/authorize',
      '/session/end',
      '/oauth/token/introspection',
    ]) {
      assertProblem(await call(platform.base, path), 404, 'NOT_FOUND');
    }
  });
});

describe('signing keys', () => {
  test('the internal JWKS publishes the public keys only, and they verify issued tokens', async () => {
    const { clientId, clientSecret } = await createTestApp(prisma());
    const response = await fetch(`${platform.internal}/jwks.json`);
    const jwks = (await response.json()) as { keys: Record<string, string>[] };
    assert.ok(jwks.keys.length >= 1);
    for (const key of jwks.keys) {
      assert.deepEqual(Object.keys(key).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x']);
    }
    const accessToken = await appToken(clientId, clientSecret);
    const { payload } = await jwtVerify(accessToken, createRemoteJWKSet(new URL(`${platform.internal}/jwks.json`)), {
      algorithms: ['EdDSA'],
      typ: 'at+jwt',
      issuer: platform.base,
      audience: platform.base,
    });
    assert.equal(payload.sub, clientId);
    assertProblem(await call(platform.base, '/../jwks.json'), 404, 'NOT_FOUND');
  });
});

describe('several signing keys', () => {
  test('the first key in SIGNING_KEYS signs; every key is published', async () => {
    const keys = [generateSigningKey(), generateSigningKey()];
    const rotated = await startTestPlatform({ SIGNING_KEYS: JSON.stringify({ keys }) });
    try {
      const { clientId, clientSecret } = await createTestApp(rotated.platform.database.prisma);
      const answer = await call(rotated.base, '/oauth/token', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(clientId, clientSecret),
        },
        body: form({ grant_type: 'client_credentials' }),
      });
      assert.equal(decodeProtectedHeader(answer.json.access_token).kid, keys[0]?.kid);
      const jwks = (await (await fetch(`${rotated.internal}/jwks.json`)).json()) as { keys: { kid: string }[] };
      assert.deepEqual(
        jwks.keys.map((key) => key.kid),
        keys.map((key) => key.kid),
      );
    } finally {
      await rotated.close();
    }
  });
});

describe('client credentials', () => {
  test('client_secret_basic gives a 300 s at+jwt app token with the app scopes and no refresh token', async () => {
    const { clientId, clientSecret, app } = await createTestApp(prisma());
    const client = { client_id: clientId };
    const response = await oauth.clientCredentialsGrantRequest(
      as,
      client,
      oauth.ClientSecretBasic(clientSecret),
      new URLSearchParams(),
      insecure,
    );
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const result = await oauth.processClientCredentialsResponse(as, client, response);
    assert.equal(result.token_type, 'bearer');
    assert.equal(result.expires_in, 300);
    assert.equal(result.scope, 'city.public.read');
    assert.equal(result.refresh_token, undefined);
    assert.deepEqual(decodeProtectedHeader(result.access_token), {
      alg: 'EdDSA',
      typ: 'at+jwt',
      kid: decodeProtectedHeader(result.access_token).kid,
    });
    const claims = decodeJwt(result.access_token);
    assert.equal(claims.sub, clientId);
    assert.equal(claims.client_id, clientId);
    assert.equal(claims.iss, platform.base);
    assert.equal(claims.aud, platform.base);
    assert.equal(claims.env, 'sandbox');
    assert.equal((claims.exp ?? 0) - (claims.iat ?? 0), 300);
    const secret = await prisma().clientSecret.findFirstOrThrow({ where: { appId: app.id } });
    assert.equal(claims.csid, secret.id);
  });

  test('client_secret_post works the same, and the contract body is exact', async () => {
    const { clientId, clientSecret } = await createTestApp(prisma());
    const answer = await token(
      {},
      form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(Object.keys(answer.json).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
    assert.equal(answer.json.token_type, 'Bearer');
  });

  test("the token served ahead of the provider is the provider's: the same answer, header and claims", async () => {
    // client_secret_basic with a plain form is answered by the platform's own grant (app-tokens.ts);
    // client_secret_post goes on to the provider. Both must be indistinguishable to an app.
    const { clientId, clientSecret } = await createTestApp(prisma(), { scopes: ['city.public.read'] });
    const served = await token(
      { authorization: basicAuth(clientId, clientSecret) },
      form({ grant_type: 'client_credentials' }),
    );
    const provided = await token(
      {},
      form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    );
    for (const answer of [served, provided]) assert.equal(answer.status, 200, answer.text);
    const headers = (answer: typeof served) =>
      Object.fromEntries(
        [...answer.headers].filter(([name]) => !['date', 'x-request-id', 'content-length'].includes(name)),
      );
    assert.deepEqual(headers(served), headers(provided));
    const shape = (answer: typeof served) => ({ ...answer.json, access_token: typeof answer.json.access_token });
    assert.deepEqual(shape(served), shape(provided));
    assert.deepEqual(
      decodeProtectedHeader(served.json.access_token),
      decodeProtectedHeader(provided.json.access_token),
    );
    const [a, b] = [decodeJwt(served.json.access_token), decodeJwt(provided.json.access_token)];
    assert.deepEqual(Object.keys(a).sort(), Object.keys(b).sort());
    for (const claim of ['sub', 'client_id', 'scope', 'iss', 'aud', 'env', 'csid'])
      assert.deepEqual(a[claim], b[claim], claim);
    assert.equal((a.exp ?? 0) - (a.iat ?? 0), (b.exp ?? 0) - (b.iat ?? 0));
    assert.match(String(a.jti), /^[\w-]{43}$/);
    assert.match(String(b.jti), /^[\w-]{43}$/);
    const jwks = createRemoteJWKSet(new URL(`${platform.internal}/jwks.json`));
    await jwtVerify(served.json.access_token, jwks, { issuer: platform.base, audience: platform.base, typ: 'at+jwt' });
    // The api takes it as it takes the provider's.
    const cities = await call(platform.base, '/cities?limit=100', {
      headers: { authorization: `Bearer ${served.json.access_token}` },
    });
    assert.equal(cities.status, 200, cities.text);
  });

  test('using both authentication methods at once is invalid_request', async () => {
    const { clientId, clientSecret } = await createTestApp(prisma());
    const answer = await token(
      { authorization: basicAuth(clientId, clientSecret) },
      form({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
    );
    assertOAuthError(answer, 400, 'invalid_request');
  });

  test('a wrong secret, an unknown client or a revoked secret is invalid_client (401)', async () => {
    const { clientId, clientSecret, app } = await createTestApp(prisma());
    assertOAuthError(
      await token({ authorization: basicAuth(clientId, 'svs_wrong') }, form({ grant_type: 'client_credentials' })),
      401,
      'invalid_client',
    );
    assertOAuthError(
      await token(
        { authorization: basicAuth('svc_aaaaaaaaaaaaaaaaaaaaaaaaaa', clientSecret) },
        form({ grant_type: 'client_credentials' }),
      ),
      401,
      'invalid_client',
    );
    await appToken(clientId, clientSecret); // the app is now in the directory's cache
    const secret = await prisma().clientSecret.findFirstOrThrow({ where: { appId: app.id } });
    await revokeSecret(prisma(), directory(), { operator: 'test' }, app.id, secret.id);
    const answer = await token(
      { authorization: basicAuth(clientId, clientSecret) },
      form({ grant_type: 'client_credentials' }),
    );
    assertOAuthError(answer, 401, 'invalid_client');
    assert.match(answer.headers.get('www-authenticate') ?? '', /^Basic /);
  });

  test('a disabled app, a suspended or guest account, or a production app cannot authenticate', async () => {
    const disabled = await createTestApp(prisma());
    await appToken(disabled.clientId, disabled.clientSecret);
    await disableApp(prisma(), directory(), { operator: 'test' }, disabled.app.id);
    const suspended = await createTestApp(prisma());
    await appToken(suspended.clientId, suspended.clientSecret);
    await suspendAccount(prisma(), directory(), { operator: 'test' }, suspended.developer);
    const guest = await createTestApp(prisma(), { kind: 'guest' });
    const production = await createTestApp(prisma());
    await prisma().app.update({ where: { id: production.app.id }, data: { environment: 'production' } });
    for (const { clientId, clientSecret } of [disabled, suspended, guest, production]) {
      assertOAuthError(
        await token({ authorization: basicAuth(clientId, clientSecret) }, form({ grant_type: 'client_credentials' })),
        401,
        'invalid_client',
      );
    }
  });

  test('scopes: only app scopes granted to the app; a user scope, an unknown or ungranted scope is invalid_scope', async () => {
    const { clientId, clientSecret } = await createTestApp(prisma());
    assert.equal(decodeJwt(await appToken(clientId, clientSecret, 'city.public.read')).scope, 'city.public.read');
    for (const scope of ['profile.basic.read', 'city.public.read profile.basic.read', 'admin', 'openid']) {
      const answer = await token(
        { authorization: basicAuth(clientId, clientSecret) },
        form({ grant_type: 'client_credentials', scope }),
      );
      assertOAuthError(answer, 400, 'invalid_scope');
    }
    // An app without any app scope (it holds only a user scope, for consents).
    const bare = await createTestApp(prisma(), { scopes: ['profile.basic.read'] });
    for (const scope of [undefined, 'city.public.read']) {
      const answer = await token(
        { authorization: basicAuth(bare.clientId, bare.clientSecret) },
        form({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) }),
      );
      assertOAuthError(answer, 400, 'invalid_scope');
    }
  });

  test('a third active secret is refused: an app holds at most two', async () => {
    const { app } = await createTestApp(prisma());
    await addSecret(prisma(), directory(), { operator: 'test' }, app.id);
    await assert.rejects(addSecret(prisma(), directory(), { operator: 'test' }, app.id), /at most 2 active secrets/);
  });

  test('a rotated secret and the old one both work until the old one is revoked', async () => {
    const { clientId, clientSecret, app } = await createTestApp(prisma());
    const rotated = await addSecret(prisma(), directory(), { operator: 'test' }, app.id);
    await appToken(clientId, clientSecret);
    assert.equal(decodeJwt(await appToken(clientId, rotated.clientSecret)).csid, rotated.secretId);
    const old = await prisma().clientSecret.findFirstOrThrow({
      where: { appId: app.id, NOT: { id: rotated.secretId } },
    });
    await revokeSecret(prisma(), directory(), { operator: 'test' }, app.id, old.id);
    assertOAuthError(
      await token({ authorization: basicAuth(clientId, clientSecret) }, form({ grant_type: 'client_credentials' })),
      401,
      'invalid_client',
    );
    await appToken(clientId, rotated.clientSecret);
  });
});

describe('token endpoint bad input', () => {
  test('an unsupported or missing grant type', async () => {
    const { clientId, clientSecret } = await createTestApp(prisma());
    const auth = { authorization: basicAuth(clientId, clientSecret) };
    assertOAuthError(await token(auth, form({ grant_type: 'password' })), 400, 'unsupported_grant_type');
    assertOAuthError(
      await token(auth, form({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code' })),
      400,
      'unsupported_grant_type',
    );
    assertOAuthError(await token(auth, ''), 400, 'invalid_request');
  });

  for (const [endpoint, valid] of [
    ['/oauth/token', 'grant_type=client_credentials'],
    ['/oauth/revoke', 'token=anything'],
  ] as const) {
    const send = (headers: Record<string, string>, body: string) =>
      call(platform.base, endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body,
      });
    test(`${endpoint}: duplicate parameters, a JSON body, an oversized body and garbage Basic headers are invalid_request`, async () => {
      const { clientId, clientSecret } = await createTestApp(prisma());
      const auth = { authorization: basicAuth(clientId, clientSecret) };
      assertOAuthError(await send(auth, `${valid}&${valid}`), 400, 'invalid_request');
      assertOAuthError(
        await send(
          { ...auth, 'content-type': 'application/json' },
          JSON.stringify(Object.fromEntries(new URLSearchParams(valid))),
        ),
        400,
        'invalid_request',
      );
      assertOAuthError(await send(auth, `${valid}&scope=${'a'.repeat(100_000)}`), 400, 'invalid_request');
      assertOAuthError(await send(auth, '%%%&&&==='), 400, 'invalid_request');
      for (const header of [
        'Basic',
        'Basic !!!',
        `Basic ${Buffer.from('no-colon').toString('base64')}`,
        'Bearer abc',
        'Basic a b',
      ]) {
        assertOAuthError(await send({ authorization: header }, valid), 400, 'invalid_request');
      }
    });

    test(`${endpoint}: no client authentication at all is invalid_client (401) with a Basic challenge`, async () => {
      const { clientId, clientSecret } = await createTestApp(prisma());
      const none = await send({}, valid);
      assertOAuthError(none, 401, 'invalid_client');
      assert.equal(none.headers.get('www-authenticate'), `Basic realm="${platform.base}"`);
      // Credentials sent twice still authenticate: that request is malformed, not anonymous.
      assertOAuthError(
        await send(
          { authorization: basicAuth(clientId, clientSecret) },
          `${valid}&${form({ client_id: clientId, client_secret: clientSecret })}`,
        ),
        400,
        'invalid_request',
      );
    });
  }

  test('a client that prefers HTML still gets the OAuthError JSON, and JWT revocation still works', async () => {
    const { clientId, clientSecret } = await createTestApp(prisma());
    const html = { accept: 'text/html,application/xhtml+xml' };
    assertOAuthError(
      await token(
        { ...html, authorization: basicAuth(clientId, 'svs_wrong') },
        form({ grant_type: 'client_credentials' }),
      ),
      401,
      'invalid_client',
    );
    assertOAuthError(
      await token({ ...html, authorization: basicAuth(clientId, clientSecret) }, form({ grant_type: 'password' })),
      400,
      'unsupported_grant_type',
    );
    const accessToken = await appToken(clientId, clientSecret);
    const revoked = await call(platform.base, '/oauth/revoke', {
      method: 'POST',
      headers: {
        ...html,
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(clientId, clientSecret),
      },
      body: form({ token: accessToken }),
    });
    assert.equal(revoked.status, 200);
    assert.equal(await prisma().revokedToken.count({ where: { jti: decodeJwt(accessToken).jti as string } }), 1);
  });

  test('wrong methods answer 405 Problem with Allow', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      for (const path of ['/oauth/token', '/oauth/revoke']) {
        const answer = await call(platform.base, path, { method });
        assertProblem(answer, 405, 'METHOD_NOT_ALLOWED');
        assert.equal(answer.headers.get('allow'), 'POST');
      }
    }
    const metadata = await call(platform.base, '/.well-known/oauth-authorization-server', { method: 'POST' });
    assertProblem(metadata, 405, 'METHOD_NOT_ALLOWED');
  });
});

describe('revocation', () => {
  const revoke = (headers: Record<string, string>, body: string) =>
    call(platform.base, '/oauth/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body,
    });

  test('revoking an app token puts it on the revoked list until it expires', async () => {
    const { clientId, clientSecret } = await createTestApp(prisma());
    const accessToken = await appToken(clientId, clientSecret);
    const response = await oauth.revocationRequest(
      as,
      { client_id: clientId },
      oauth.ClientSecretBasic(clientSecret),
      accessToken,
      insecure,
    );
    await oauth.processRevocationResponse(response);
    // Again, now that it is already revoked: still 200 with an empty body.
    const answer = await revoke({ authorization: basicAuth(clientId, clientSecret) }, form({ token: accessToken }));
    assert.equal(answer.status, 200);
    assert.equal(answer.text, '');
    const { jti, exp } = decodeJwt(accessToken);
    const row = await prisma().revokedToken.findUniqueOrThrow({ where: { jti: jti as string } });
    assert.equal(row.expiresAt.getTime(), (exp as number) * 1000);
  });

  test('unknown, garbage and foreign tokens answer 200 with an empty body and change nothing', async () => {
    const mine = await createTestApp(prisma());
    const theirs = await createTestApp(prisma());
    const foreign = await appToken(theirs.clientId, theirs.clientSecret);
    for (const value of ['nothing-like-a-token', 'a.b.c', foreign, `${foreign.slice(0, -4)}AAAA`]) {
      const answer = await revoke(
        { authorization: basicAuth(mine.clientId, mine.clientSecret) },
        form({ token: value }),
      );
      assert.equal(answer.status, 200);
      assert.equal(answer.text, '');
    }
    assert.equal(await prisma().revokedToken.count({ where: { jti: decodeJwt(foreign).jti as string } }), 0);
  });

  test('a missing token is invalid_request; failed client authentication is invalid_client', async () => {
    const { clientId, clientSecret } = await createTestApp(prisma());
    assertOAuthError(
      await revoke({ authorization: basicAuth(clientId, clientSecret) }, form({ token_type_hint: 'access_token' })),
      400,
      'invalid_request',
    );
    assertOAuthError(
      await revoke({ authorization: basicAuth(clientId, 'svs_nope') }, form({ token: 'x' })),
      401,
      'invalid_client',
    );
  });
});

describe('the platform switch', () => {
  test('switched off, token, revocation and metadata answer 503 FEATURE_DISABLED', async () => {
    const off = await startTestPlatform({ DEVELOPER_PLATFORM_ENABLED: 'false' });
    try {
      for (const [method, path] of [
        ['POST', '/oauth/token'],
        ['POST', '/oauth/revoke'],
        ['GET', '/.well-known/oauth-authorization-server'],
      ] as const) {
        assertProblem(await call(off.base, path, { method }), 503, 'FEATURE_DISABLED');
      }
    } finally {
      await off.close();
    }
  });
});
