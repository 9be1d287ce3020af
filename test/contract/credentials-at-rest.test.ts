// Credentials at rest are useless: whoever reads a Redis dump, backup or replica finds none of the
// credentials a client or browser presents. A whole lifecycle runs against a real Redis, then every
// key under the platform's prefix is read, its name and its value. And the codes and refresh-token
// families the previous release kept in the clear still work after the release, once.
import assert from 'node:assert/strict';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { redisClientOf } from '@devplat/kv';
import { createNamedApp, formField, refresh } from '@devplat/test/connected-apps';
import { authorizationRequest, redeemCode, revokeToken, tokenRequest } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp, createPlayer, Jar } from '@devplat/test/players';
import { decodeJwt } from 'jose';

const prefix = `devplat-test:${randomUUID()}:`;
let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform({ REDIS_KEY_PREFIX: prefix });
});
after(() => platform.close());
const prisma = () => platform.platform.database.prisma;
const store = () => platform.platform.store;
const scope = 'city.public.read profile.basic.read';

/** A browser on the player client: keeps its cookies and remembers every value one had. */
class Browser {
  private readonly jar = new Jar();
  readonly cookieValues = new Set<string>();

  async fetch(url: string, form?: Record<string, string>): Promise<Response> {
    const headers = { cookie: this.jar.header(), 'content-type': 'application/x-www-form-urlencoded' };
    const response = await fetch(
      url,
      form
        ? { method: 'POST', redirect: 'manual', headers, body: new URLSearchParams(form).toString() }
        : { redirect: 'manual', headers: { cookie: headers.cookie } },
    );
    this.jar.take(response);
    for (const pair of this.jar.header().split('; ')) {
      const value = pair.slice(pair.indexOf('=') + 1);
      if (value) this.cookieValues.add(value);
    }
    return response;
  }

  /** Follows an authorization URL, signing in when asked, and allows: the code's redirect. */
  async allow(authorizationUrl: string, player: { username: string; password: string }): Promise<URL> {
    const origin = new URL(authorizationUrl).origin;
    let response = await this.fetch(authorizationUrl);
    if (response.status === 302) {
      const signIn = await (await this.fetch(`${origin}${response.headers.get('location')}`)).text();
      response = await this.fetch(`${origin}/signin`, {
        csrf: formField(signIn, 'csrf'),
        return_to: formField(signIn, 'return_to').replaceAll('&amp;', '&'),
        username: player.username,
        password: player.password,
      });
      assert.equal(response.status, 302, 'signed in');
      response = await this.fetch(`${origin}${response.headers.get('location')}`);
    }
    const screen = await response.text();
    assert.equal(response.status, 200, screen);
    const answer = await this.fetch(`${origin}/oauth/authorize`, {
      request: formField(screen, 'request'),
      csrf: formField(screen, 'csrf'),
      decision: 'allow',
    });
    return new URL(answer.headers.get('location') as string);
  }
}

/** Every key under the platform's prefix with everything it holds, as a dump would show it. */
async function dumpRedis(): Promise<Map<string, string>> {
  const redis = redisClientOf(store());
  assert.ok(redis && !('nodes' in redis), 'the platform runs on one Redis server (REDIS_URL)');
  const dump = new Map<string, string>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      // The client adds the prefix to every key it is given (SCAN's pattern excepted).
      const name = key.slice(prefix.length);
      const type = await redis.type(name);
      const read: Record<string, () => Promise<unknown>> = {
        string: () => redis.get(name),
        hash: () => redis.hgetall(name),
        set: () => redis.smembers(name),
        zset: () => redis.zrange(name, 0, -1, 'WITHSCORES'),
        list: () => redis.lrange(name, 0, -1),
        stream: () => redis.xrange(name, '-', '+'),
      };
      if (type === 'none') continue; // expired since the scan
      assert.ok(read[type], `${key} is a ${type}, which this dump cannot read`);
      dump.set(key, JSON.stringify(await read[type]()));
    }
  } while (cursor !== '0');
  return dump;
}

/** Where a credential, or its random part, shows in the dump: key names and values. */
function whereFound(dump: Map<string, string>, credentials: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [name, credential] of credentials) {
    // The random part: after a refresh token's last dot, a JWT's signature, a known prefix.
    const secret = credential.slice(credential.lastIndexOf('.') + 1).replace(/^sv[as]_/, '');
    for (const [key, value] of dump) {
      if (key.includes(secret) || value.includes(secret)) found.push(`${name} in ${key}`);
    }
  }
  return found;
}

describe('a Redis dump holds no credential', { skip: process.env.REDIS_URL ? false : 'needs REDIS_URL' }, () => {
  test('after client credentials, codes with PKCE, refresh rotations and a revocation', async () => {
    const app = await createNamedApp(prisma(), 'At rest');
    const { password, ...player } = await createPlayer(prisma(), app.developer.id);
    const redirectUri = app.app.redirectUris[0] as string;
    const credentials = new Map<string, string>([
      ['client secret', app.clientSecret],
      ['player password', password],
    ]);

    const appToken = await tokenRequest(platform.base, app, { grant_type: 'client_credentials' });
    assert.equal(appToken.status, 200, appToken.text);
    credentials.set('app access token', appToken.json.access_token);

    const browser = new Browser();
    const first = await authorizationRequest(platform.base, app.clientId, redirectUri, scope);
    const back = await browser.allow(first.url, { ...player, password });
    credentials.set('first code', back.searchParams.get('code') as string);
    const tokens = await redeemCode(platform.base, app, back, redirectUri, first.state, first.verifier);
    credentials.set('user access token', tokens.accessToken);
    credentials.set('refresh token 0', tokens.refreshToken);
    let current = tokens.refreshToken;
    for (let rotation = 1; rotation <= 4; rotation++) {
      const rotated = await refresh(platform.base, app, current);
      assert.equal(rotated.status, 200, rotated.text);
      current = rotated.json.refresh_token;
      credentials.set(`refresh token ${rotation}`, current);
      credentials.set(`access token ${rotation}`, rotated.json.access_token);
    }
    // A second code, still unredeemed while Redis is read.
    const second = await authorizationRequest(platform.base, app.clientId, redirectUri, scope);
    const secondBack = await browser.allow(second.url, { ...player, password });
    credentials.set('unredeemed code', secondBack.searchParams.get('code') as string);
    for (const [at, value] of [...browser.cookieValues].entries()) credentials.set(`cookie value ${at}`, value);

    const live = await dumpRedis();
    const kinds = [...live.keys()].map((key) => key.slice(prefix.length));
    for (const kind of ['oidc:AuthorizationCode:', 'oidc:RefreshToken:', 'oidc:Grant:', 'player-session:']) {
      assert.ok(
        kinds.some((key) => key.startsWith(kind)),
        `the dump has ${kind} keys: ${kinds.join(', ')}`,
      );
    }
    assert.deepEqual(whereFound(live, credentials), []);

    // What was stored still works: the unredeemed code, the family's current token.
    const secondTokens = await redeemCode(platform.base, app, secondBack, redirectUri, second.state, second.verifier);
    credentials.set('second refresh token', secondTokens.refreshToken);
    const again = await refresh(platform.base, app, current);
    assert.equal(again.status, 200, again.text);
    credentials.set('refresh token 5', again.json.refresh_token);
    assert.equal((await revokeToken(platform.base, app, again.json.refresh_token)).status, 200);
    assert.equal((await revokeToken(platform.base, app, appToken.json.access_token)).status, 200);
    const revoked = await refresh(platform.base, app, again.json.refresh_token);
    assert.equal(revoked.json.error, 'invalid_grant', 'the revoked family is gone');

    assert.deepEqual(whereFound(await dumpRedis(), credentials), []);
  });
});

describe('codes and families the previous release kept in the clear', () => {
  const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

  async function setup(name: string) {
    const app = await createNamedApp(prisma(), name);
    const player = await createPlayer(prisma(), app.developer.id);
    return { app, player, redirectUri: app.app.redirectUris[0] as string };
  }

  /** A code the player allowed, moved to where and how the previous release kept it. */
  async function clearCode({ app, player, redirectUri }: Awaited<ReturnType<typeof setup>>) {
    const request = await authorizationRequest(platform.base, app.clientId, redirectUri, scope);
    const code = (await consentOverHttp(request.url, player)).searchParams.get('code') as string;
    const hashed = `oidc:AuthorizationCode:{${sha256(code)}}`;
    const [value] = await store().getMany([hashed]);
    assert.ok(value, 'the code is stored under its hash');
    const payload = JSON.parse(value);
    await store().delete([hashed]);
    await store().putFiled(
      `oidc:AuthorizationCode:{${code}}`,
      JSON.stringify({ ...payload, jti: code }),
      600,
      `oidc:grant:{${payload.grantId}}`,
    );
    const redeem = () =>
      tokenRequest(platform.base, app, {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        code_verifier: request.verifier,
      });
    return { code, redeem };
  }

  /** A family whose record names a token of the previous release, in the clear; resolves with that token. */
  async function clearFamily({ app, player, redirectUri }: Awaited<ReturnType<typeof setup>>) {
    const request = await authorizationRequest(platform.base, app.clientId, redirectUri, scope);
    const back = await consentOverHttp(request.url, player);
    const tokens = await redeemCode(platform.base, app, back, redirectUri, request.state, request.verifier);
    const grantId = decodeJwt(tokens.accessToken).gid as string;
    const [record] = await store().getMany([`oidc:RefreshToken:{${grantId}}`]);
    assert.ok(record, 'the family is stored');
    const token = `${grantId}.0.${randomBytes(24).toString('base64url')}`;
    const { payload } = JSON.parse(record);
    await store().put(
      `oidc:RefreshToken:{${grantId}}`,
      JSON.stringify({ id: token, payload: { ...payload, jti: token } }),
      3600,
    );
    return { token, grantId, consentId: tokens.consentId };
  }

  const consentOf = (id: string) => prisma().consent.findUniqueOrThrow({ where: { id } });

  test('a code redeems once; presented again, it revokes the consent', async () => {
    const s = await setup('Clear code');
    const { redeem } = await clearCode(s);
    const first = await redeem();
    assert.equal(first.status, 200, first.text);
    const again = await redeem();
    assert.equal(again.status, 400);
    assert.equal(again.json.error, 'invalid_grant');
    const consent = await consentOf(decodeJwt(first.json.access_token).cns as string);
    assert.equal(consent.status, 'revoked');
    assert.equal(consent.revocationReason, 'code_replay');
    const refreshed = await refresh(platform.base, s.app, first.json.refresh_token);
    assert.equal(refreshed.json.error, 'invalid_grant');
  });

  test('of 10 parallel redemptions of such a code, at most one succeeds, and the consent ends', async () => {
    const s = await setup('Clear code race');
    const { redeem } = await clearCode(s);
    const answers = await Promise.all(Array.from({ length: 10 }, redeem));
    assert.ok(answers.filter((answer) => answer.status === 200).length <= 1);
    assert.ok(answers.every((answer) => answer.status === 200 || answer.json.error === 'invalid_grant'));
    const consent = await prisma().consent.findFirstOrThrow({ where: { appId: s.app.app.id } });
    assert.equal(consent.status, 'revoked');
  });

  test('a refresh token rotates once, its family is then stored without it, and presenting it again revokes', async () => {
    const s = await setup('Clear family');
    const { token, grantId, consentId } = await clearFamily(s);
    const rotated = await refresh(platform.base, s.app, token);
    assert.equal(rotated.status, 200, rotated.text);
    const [record] = await store().getMany([`oidc:RefreshToken:{${grantId}}`]);
    assert.ok(record && !record.includes(token.slice(-32)), 'the old token is no longer stored');
    assert.ok(!record.includes(rotated.json.refresh_token.slice(-32)), 'nor is the new one');
    const next = await refresh(platform.base, s.app, rotated.json.refresh_token);
    assert.equal(next.status, 200, next.text);

    const replayed = await refresh(platform.base, s.app, token);
    assert.equal(replayed.json.error, 'invalid_grant');
    const consent = await consentOf(consentId);
    assert.equal(consent.status, 'revoked');
    assert.equal(consent.revocationReason, 'refresh_token_replay');
    assert.equal((await refresh(platform.base, s.app, next.json.refresh_token)).json.error, 'invalid_grant');
  });

  test('of 10 parallel refreshes with such a token, at most one succeeds, and the consent ends', async () => {
    const s = await setup('Clear family race');
    const { token, consentId } = await clearFamily(s);
    const answers = await Promise.all(Array.from({ length: 10 }, () => refresh(platform.base, s.app, token)));
    const wins = answers.filter((answer) => answer.status === 200);
    assert.ok(wins.length <= 1, `${wins.length} refreshes succeeded`);
    assert.ok(answers.every((answer) => answer.status === 200 || answer.json.error === 'invalid_grant'));
    assert.equal((await consentOf(consentId)).status, 'revoked');
  });
});
