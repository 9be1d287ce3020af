// A refresh-token family's rules beyond rotation and replay: narrowing sticks for the rest of the
// family, and the family lives while it is used (each rotation gives the grant 30 more days).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { limits } from '@devplat/contract';
import { allowOverHttp, createNamedApp } from '@devplat/test/connected-apps';
import { call } from '@devplat/test/http';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';
import { decodeJwt } from 'jose';

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform.close());
const prisma = () => platform.platform.database.prisma;
const store = () => platform.platform.store;

async function family(name: string) {
  const app = await createNamedApp(prisma(), name);
  const player = await createPlayer(prisma(), app.developer.id);
  return { app, tokens: await allowOverHttp(platform.base, app, player) };
}

function refresh(app: { clientId: string; clientSecret: string }, refreshToken: string, scope?: string) {
  return call(platform.base, '/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(app.clientId, app.clientSecret),
    },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      ...(scope ? { scope } : {}),
    }),
  });
}

const now = () => Math.floor(Date.now() / 1000);
async function stored(key: string): Promise<{ exp: number }> {
  const [value] = await store().getMany([key]);
  assert.ok(value, `${key} is stored`);
  return JSON.parse(value);
}

describe('narrowing sticks', () => {
  test('a refresh that narrows rotates to a narrower family; a wider request is invalid_scope', async () => {
    const { app, tokens } = await family('Narrowing');
    const narrowed = await refresh(app, tokens.refreshToken, 'city.public.read');
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.equal(narrowed.json.scope, 'city.public.read');

    const plain = await refresh(app, narrowed.json.refresh_token);
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.json.scope, 'city.public.read', 'no scope asked: the narrowed scopes');
    assert.equal(decodeJwt(plain.json.access_token).scope, 'city.public.read');

    const wider = await refresh(app, plain.json.refresh_token, 'city.public.read profile.basic.read');
    assert.equal(wider.status, 400);
    assert.equal(wider.json.error, 'invalid_scope');

    // A refused request rotates nothing and revokes nothing: the token still works.
    const again = await refresh(app, plain.json.refresh_token);
    assert.equal(again.status, 200, again.text);
    assert.equal(again.json.scope, 'city.public.read');
    const consent = await prisma().consent.findUniqueOrThrow({ where: { id: tokens.consentId } });
    assert.equal(consent.status, 'active');
  });
});

describe('the family lives while it is used', () => {
  test('each rotation gives the grant and the new token 30 days from that rotation', async () => {
    const { app, tokens } = await family('Lifetime');
    const grantKey = `oidc:Grant:{${decodeJwt(tokens.accessToken).gid}}`;
    // As if the consent had been given 30 days ago, less two seconds.
    const grant = await stored(grantKey);
    await store().put(grantKey, JSON.stringify({ ...grant, exp: now() + 2 }), 2);

    const rotated = await refresh(app, tokens.refreshToken);
    assert.equal(rotated.status, 200, rotated.text);
    const month = limits.refreshTokenSeconds;
    assert.ok(Math.abs((await stored(grantKey)).exp - (now() + month)) <= 5, 'the grant lives 30 days more');
    // The family's one record names its current token, by the token's hash.
    const record = (await stored(`oidc:RefreshToken:{${decodeJwt(tokens.accessToken).gid}}`)) as unknown as {
      id: string;
      payload: { exp: number };
    };
    const token: string = rotated.json.refresh_token;
    assert.equal(record.id, token.replace(/[^.]+$/, createHash('sha256').update(token).digest('hex')));
    assert.ok(
      Math.abs(record.payload.exp - (now() + month)) <= 5,
      'the new refresh token lives 30 days from its issue',
    );

    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const later = await refresh(app, rotated.json.refresh_token);
    assert.equal(later.status, 200, `the family outlives the consent's first 30 days: ${later.text}`);
  });
});
