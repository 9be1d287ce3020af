// GET /cities and GET /me with tokens from the real auth service, and the moment anything a
// token depends on stops being active, the very next call is refused.
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { appDirectory } from '@devplat/app-directory';
import { generateSigningKey } from '@devplat/config';
import { disableApp, revokeSecret } from '@devplat/domain/apps';
import { suspendAccount } from '@devplat/domain/workflows';
import { createTestApp } from '@devplat/test/apps';
import { assertProblem, call } from '@devplat/test/http';
import { basicAuth, revokeToken } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp, createPlayer } from '@devplat/test/players';
import { base64url, decodeJwt, importJWK, SignJWT } from 'jose';
import * as oauth from 'oauth4webapi';

let platform: TestPlatform;
const redirectUri = 'http://127.0.0.1:9/callback';
const registry = JSON.parse(readFileSync(new URL('../../prisma/seed/registry.json', import.meta.url), 'utf8')) as {
  cities: {
    id: string;
    name: string;
    country_code: string;
    availability: string;
    supported_capabilities: string[];
    reviewed: boolean;
  }[];
};

// The platform's signing key is known to the test, so it can sign tokens the platform would
// accept but for one flaw (expired).
const signingKey = generateSigningKey();
before(async () => {
  platform = await startTestPlatform({ SIGNING_KEYS: JSON.stringify({ keys: [signingKey] }) });
});
after(() => platform.close());
const prisma = () => platform.platform.database.prisma;
const directory = () => appDirectory(prisma(), platform.platform.store);

async function tokenCall(body: Record<string, string>, clientId: string, clientSecret: string) {
  const answer = await call(platform.base, '/oauth/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(clientId, clientSecret) },
    body: new URLSearchParams(body).toString(),
  });
  return answer;
}

async function appToken(scopes = ['city.public.read', 'profile.basic.read']) {
  const app = await createTestApp(prisma(), { scopes, redirectUris: [redirectUri] });
  const answer = await tokenCall({ grant_type: 'client_credentials' }, app.clientId, app.clientSecret);
  return { ...app, accessToken: answer.json.access_token as string };
}

async function userTokens(scope = 'city.public.read profile.basic.read', displayName: string | null = 'Ada') {
  const app = await createTestApp(prisma(), {
    scopes: ['city.public.read', 'profile.basic.read'],
    redirectUris: [redirectUri],
  });
  const player = await createPlayer(prisma(), app.developer.id, displayName);
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(`${platform.playerClient}/oauth/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: redirectUri,
    scope,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();
  const back = await consentOverHttp(url.href, player);
  const code = back.searchParams.get('code') as string;
  const answer = await tokenCall(
    { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier },
    app.clientId,
    app.clientSecret,
  );
  assert.equal(answer.status, 200, answer.text);
  return {
    ...app,
    player,
    code,
    verifier,
    accessToken: answer.json.access_token as string,
    refreshToken: answer.json.refresh_token as string,
  };
}

const get = (path: string, token?: string) =>
  call(platform.base, path, token ? { headers: { authorization: `Bearer ${token}` } } : {});

describe('GET /cities', () => {
  test('an app token with city.public.read gets the reviewed registry, never an unreviewed city', async () => {
    const { accessToken } = await appToken();
    const answer = await get('/cities?limit=100', accessToken);
    assert.equal(answer.status, 200);
    assert.equal(answer.json.next_cursor, null);
    const expected = registry.cities
      .filter((city) => city.reviewed)
      .map(({ id, name, country_code, availability, supported_capabilities }) => ({
        id,
        name,
        country_code,
        availability,
        supported_capabilities,
      }))
      .sort((a, b) => a.id.localeCompare(b.id));
    assert.deepEqual(answer.json.data, expected);
  });

  test('a user token works too', async () => {
    const { accessToken } = await userTokens('city.public.read');
    assert.equal((await get('/cities?limit=100', accessToken)).status, 200);
  });

  test('a result larger than limit is 503, never a list cut short; the default limit is 25', async () => {
    const { accessToken } = await appToken();
    assertProblem(await get('/cities', accessToken), 503, 'RESULT_TOO_LARGE');
    assertProblem(await get('/cities?limit=33', accessToken), 503, 'RESULT_TOO_LARGE');
    assert.equal((await get('/cities?limit=34', accessToken)).json.data.length, 34);
  });

  test('unknown, duplicate, cursor and out-of-range parameters are 400', async () => {
    const { accessToken } = await appToken();
    for (const query of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'limit=1.5',
      'limit=-1',
      'limit=',
      'limit=50&limit=50',
      'cursor=abc',
      'page=2',
      'limit=50&x=1',
      '%ZZ=1',
    ]) {
      assertProblem(await get(`/cities?${query}`, accessToken), 400, 'INVALID_QUERY');
    }
  });

  test('a token without city.public.read is 403 INSUFFICIENT_SCOPE', async () => {
    const { accessToken } = await userTokens('profile.basic.read');
    const answer = await get('/cities?limit=100', accessToken);
    assertProblem(answer, 403, 'INSUFFICIENT_SCOPE');
    assert.match(answer.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
  });
});

describe('GET /me', () => {
  test('a user token gets the pairwise sub and the chosen display name', async () => {
    const { accessToken } = await userTokens();
    const answer = await get('/me', accessToken);
    assert.deepEqual(answer.json, { api_version: '1.0', sub: decodeJwt(accessToken).sub, display_name: 'Ada' });
  });

  test('display_name is null when the player chose none', async () => {
    const { accessToken } = await userTokens('profile.basic.read', null);
    assert.equal((await get('/me', accessToken)).json.display_name, null);
  });

  test('an app token is 403 USER_TOKEN_REQUIRED; a user token without profile.basic.read is 403 INSUFFICIENT_SCOPE', async () => {
    assertProblem(await get('/me', (await appToken()).accessToken), 403, 'USER_TOKEN_REQUIRED');
    assertProblem(await get('/me', (await userTokens('city.public.read')).accessToken), 403, 'INSUFFICIENT_SCOPE');
  });
});

describe('revocation takes effect on the very next call', () => {
  test('revoking a user token: 403 CONSENT_REVOKED', async () => {
    const s = await userTokens();
    assert.equal((await get('/me', s.accessToken)).status, 200);
    assert.equal((await revokeToken(platform.base, s, s.refreshToken)).status, 200);
    assertProblem(await get('/me', s.accessToken), 403, 'CONSENT_REVOKED');
    assertProblem(await get('/cities?limit=100', s.accessToken), 403, 'CONSENT_REVOKED');
  });

  test('refresh-token replay and code replay: 403 CONSENT_REVOKED', async () => {
    const refreshed = await userTokens();
    await tokenCall(
      { grant_type: 'refresh_token', refresh_token: refreshed.refreshToken },
      refreshed.clientId,
      refreshed.clientSecret,
    );
    await tokenCall(
      { grant_type: 'refresh_token', refresh_token: refreshed.refreshToken },
      refreshed.clientId,
      refreshed.clientSecret,
    );
    assertProblem(await get('/me', refreshed.accessToken), 403, 'CONSENT_REVOKED');
    const replayed = await userTokens();
    await tokenCall(
      {
        grant_type: 'authorization_code',
        code: replayed.code,
        redirect_uri: redirectUri,
        code_verifier: replayed.verifier,
      },
      replayed.clientId,
      replayed.clientSecret,
    );
    assertProblem(await get('/me', replayed.accessToken), 403, 'CONSENT_REVOKED');
  });

  test('a disabled sandbox player: 403 ACCESS_DENIED on the next call, while the consent stands', async () => {
    const s = await userTokens();
    assert.equal((await get('/me', s.accessToken)).status, 200);
    await prisma().sandboxPlayer.update({ where: { id: s.player.player.id }, data: { status: 'disabled' } });
    assertProblem(await get('/me', s.accessToken), 403, 'ACCESS_DENIED');
    assertProblem(await get('/cities?limit=100', s.accessToken), 403, 'ACCESS_DENIED');
    assert.equal(
      (await prisma().consent.findUniqueOrThrow({ where: { id: decodeJwt(s.accessToken).cns as string } })).status,
      'active',
    );
  });

  test('a revoked secret, a disabled app, a suspended account or a revoked app token: 401 invalid_token', async () => {
    const secret = await appToken();
    const secretRow = await prisma().clientSecret.findFirstOrThrow({ where: { appId: secret.app.id } });
    await revokeSecret(prisma(), directory(), { operator: 'test' }, secret.app.id, secretRow.id);
    const disabled = await appToken();
    await disableApp(prisma(), directory(), { operator: 'test' }, disabled.app.id);
    const suspended = await userTokens();
    await suspendAccount(prisma(), directory(), { operator: 'test' }, suspended.developer);
    const revoked = await appToken();
    assert.equal((await revokeToken(platform.base, revoked, revoked.accessToken)).status, 200);
    for (const { accessToken } of [secret, disabled, suspended, revoked]) {
      const answer = await get('/cities?limit=100', accessToken);
      assertProblem(answer, 401, 'INVALID_TOKEN');
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer error="invalid_token"/);
    }
  });
});

describe('forged and broken tokens', () => {
  test('each is a 401 with WWW-Authenticate, none a 500', async () => {
    const { accessToken, clientId } = await appToken();
    const [header, payload, signature] = accessToken.split('.') as [string, string, string];
    const claims = decodeJwt(accessToken);
    const encode = (value: object) => base64url.encode(JSON.stringify(value));
    const otherKey = generateSigningKey();
    const signWith = (alg: 'EdDSA', body: object, typ = 'at+jwt') =>
      importJWK({ ...otherKey, alg }, alg).then((key) =>
        new SignJWT({ ...body }).setProtectedHeader({ alg, typ, kid: otherKey.kid }).sign(key),
      );
    // Signed with the platform's own key, correct in every way but expired.
    const expired = await new SignJWT({
      ...claims,
      iat: Math.floor(Date.now() / 1000) - 600,
      exp: Math.floor(Date.now() / 1000) - 300,
    })
      .setProtectedHeader({ alg: 'EdDSA', typ: 'at+jwt', kid: signingKey.kid })
      .sign(await importJWK({ ...signingKey, alg: 'EdDSA' }, 'EdDSA'));
    const forged = [
      `${encode({ alg: 'none', typ: 'at+jwt' })}.${payload}.`,
      `${encode({ alg: 'HS256', typ: 'at+jwt' })}.${payload}.${signature}`,
      await signWith('EdDSA', claims),
      `${header}.${encode({ ...claims, aud: 'https://elsewhere.example' })}.${signature}`,
      `${header}.${encode({ ...claims, env: 'production' })}.${signature}`,
      `${header}.${encode({ ...claims, exp: 1 })}.${signature}`,
      expired,
      // The classic confusion attack: HS256, with the public key (as PEM) for the HMAC secret.
      await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt', kid: signingKey.kid }).sign(
        new TextEncoder().encode(
          createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: signingKey.x }, format: 'jwk' })
            .export({ type: 'spki', format: 'pem' })
            .toString(),
        ),
      ),
      accessToken.slice(0, -10),
      'garbage',
      `${header}.${payload}`,
    ];
    for (const token of forged) {
      const answer = await get('/cities?limit=100', token);
      assertProblem(answer, 401, 'INVALID_TOKEN');
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
    const late = await get('/cities?limit=100', expired);
    assert.match(late.headers.get('www-authenticate') ?? '', /error_description="the token has expired"/);
    assert.ok(clientId);
  });

  test('no token, or another scheme, is a 401 naming Bearer', async () => {
    for (const headers of [
      {},
      { authorization: 'Basic abc' },
      { authorization: 'Bearer' },
      { authorization: 'Bearer a b' },
    ]) {
      const answer = await call(platform.base, '/me', { headers });
      assertProblem(answer, 401, 'INVALID_TOKEN');
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
  });
});

describe('switches and failures', () => {
  test('the platform switched off: /cities and /me answer 503 FEATURE_DISABLED', async () => {
    const off = await startTestPlatform({ DEVELOPER_PLATFORM_ENABLED: 'off' });
    try {
      assertProblem(await call(off.base, '/cities'), 503, 'FEATURE_DISABLED');
      assertProblem(await call(off.base, '/me'), 503, 'FEATURE_DISABLED');
    } finally {
      await off.close();
    }
  });

  test('capabilities now report the city registry and the player profile', async () => {
    const { json } = await call(platform.base, '/capabilities');
    assert.equal(json.capabilities.city_registry, true);
    assert.equal(json.capabilities.player_profile, true);
  });
});
