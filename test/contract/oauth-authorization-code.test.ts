// The authorization code flow as an app developer meets it: oauth4webapi on the app's side, a
// sandbox player signing in and answering the consent screen over HTTP (Chromium drives the same
// pages in test/players/browser.test.ts), and every replay and race of the contract's state
// table.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { appDirectory } from '@devplat/app-directory';
import { disableApp } from '@devplat/domain/apps';
import { createTestApp } from '@devplat/test/apps';
import { assertProblem, call } from '@devplat/test/http';
import { basicAuth, discover, insecure } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp, createPlayer, openConsentScreen } from '@devplat/test/players';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';

let platform: TestPlatform;
let as: oauth.AuthorizationServer;
const redirectUri = 'http://127.0.0.1:9/callback';

before(async () => {
  platform = await startTestPlatform();
  as = await discover(platform.base);
});
after(() => platform.close());
const prisma = () => platform.platform.database.prisma;

async function setup(scopes = ['city.public.read', 'profile.basic.read']) {
  const app = await createTestApp(prisma(), { scopes, redirectUris: [redirectUri, 'https://app.example.test/cb'] });
  const player = await createPlayer(prisma(), app.developer.id);
  return { ...app, client: { client_id: app.clientId }, auth: oauth.ClientSecretBasic(app.clientSecret), player };
}
type Setup = Awaited<ReturnType<typeof setup>>;

function authorizationUrl(clientId: string, params: Record<string, string | undefined>) {
  const url = new URL(as.authorization_endpoint as string);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    ...params,
  })) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.href;
}

async function authorize(
  s: Setup,
  scope = 'city.public.read profile.basic.read',
  decision: 'allow' | 'deny' = 'allow',
) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = authorizationUrl(s.clientId, {
    scope,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const back = await consentOverHttp(url, s.player, decision);
  return { back, verifier, state };
}

async function redeem(s: Setup, callback: URL, state: string, verifier: string) {
  const params = oauth.validateAuthResponse(as, s.client, callback, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    s.client,
    s.auth,
    params,
    redirectUri,
    verifier,
    insecure,
  );
  return oauth.processAuthorizationCodeResponse(as, s.client, response);
}

async function tokens(s: Setup) {
  const { back, verifier, state } = await authorize(s);
  return { ...(await redeem(s, back, state, verifier)), code: back.searchParams.get('code') as string, verifier };
}

const rawToken = (s: Setup, fields: Record<string, string>) =>
  call(platform.base, '/oauth/token', {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(s.clientId, s.clientSecret),
    },
    body: new URLSearchParams(fields).toString(),
  });

const consentOf = async (accessToken: string) =>
  prisma().consent.findUniqueOrThrow({ where: { id: decodeJwt(accessToken).cns as string } });

describe('player allows', () => {
  test('the app gets a sva_ code with state and iss, then a 300 s user token and a refresh token', async () => {
    const s = await setup();
    const { back, verifier, state } = await authorize(s);
    assert.equal(`${back.origin}${back.pathname}`, redirectUri);
    assert.match(back.searchParams.get('code') ?? '', /^sva_[\w-]{43}$/);
    assert.equal(back.searchParams.get('state'), state);
    assert.equal(back.searchParams.get('iss'), platform.base);
    const result = await redeem(s, back, state, verifier);
    assert.equal(result.expires_in, 300);
    assert.equal(result.scope, 'city.public.read profile.basic.read');
    assert.ok(result.refresh_token);
    const claims = decodeJwt(result.access_token);
    assert.match(claims.sub as string, /^ps_[A-Za-z0-9_-]{32}$/);
    assert.notEqual(claims.sub, s.player.player.id);
    assert.equal(claims.client_id, s.clientId);
    assert.equal(claims.aud, platform.base);
    assert.equal((claims.exp as number) - (claims.iat as number), 300);
  });

  test('the consent receipt and its consent.granted event are written', async () => {
    const s = await setup();
    const { access_token } = await tokens(s);
    const consent = await consentOf(access_token);
    assert.equal(consent.status, 'active');
    assert.deepEqual(consent.scopes, ['city.public.read', 'profile.basic.read']);
    assert.equal(consent.consentTextVersion, '2026-11-22');
    const event = await prisma().outboxEvent.findFirstOrThrow({ where: { appId: s.app.id, type: 'consent.granted' } });
    assert.equal((event.payload as { sub: string }).sub, decodeJwt(access_token).sub);
  });

  test('the pairwise subject is stable per app and differs across apps', async () => {
    const first = await setup();
    const other = await createTestApp(prisma(), { scopes: ['profile.basic.read'], redirectUris: [redirectUri] });
    const sameApp = [
      decodeJwt((await tokens(first)).access_token).sub,
      decodeJwt((await tokens(first)).access_token).sub,
    ];
    assert.equal(sameApp[0], sameApp[1]);
    const second = {
      ...first,
      ...other,
      client: { client_id: other.clientId },
      auth: oauth.ClientSecretBasic(other.clientSecret),
    };
    const { back, verifier, state } = await authorize(second, 'profile.basic.read');
    assert.notEqual(decodeJwt((await redeem(second, back, state, verifier)).access_token).sub, sameApp[0]);
  });
});

describe('consent screen outcomes', () => {
  test('Not now sends access_denied with state and iss, and shares nothing', async () => {
    const s = await setup();
    const { back, state } = await authorize(s, 'profile.basic.read', 'deny');
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), state);
    assert.equal(back.searchParams.get('iss'), platform.base);
    assert.equal(back.searchParams.get('code'), null);
    assert.equal(await prisma().consent.count({ where: { appId: s.app.id } }), 0);
  });

  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  const cases: [string, Record<string, string | undefined>, string][] = [
    [
      'a scope the app is not granted',
      { scope: 'profile.basic.read', code_challenge: challenge, code_challenge_method: 'S256' },
      'invalid_scope',
    ],
    ['an unknown scope', { scope: 'admin', code_challenge: challenge, code_challenge_method: 'S256' }, 'invalid_scope'],
    [
      'a wrong response type',
      { response_type: 'token', scope: 'city.public.read', code_challenge: challenge, code_challenge_method: 'S256' },
      'unsupported_response_type',
    ],
    ['no PKCE', { scope: 'city.public.read' }, 'invalid_request'],
    [
      'PKCE plain',
      { scope: 'city.public.read', code_challenge: challenge, code_challenge_method: 'plain' },
      'invalid_request',
    ],
  ];
  for (const [name, params, error] of cases) {
    test(`${name} redirects with error=${error}`, async () => {
      const s = await setup(['city.public.read']);
      const back = await consentOverHttp(authorizationUrl(s.clientId, { state: 'xyz', ...params }), s.player);
      assert.equal(back.searchParams.get('error'), error);
      assert.equal(back.searchParams.get('state'), 'xyz');
      assert.equal(back.searchParams.get('iss'), platform.base);
    });
  }

  test('answering one screen twice at once (a double click) issues one code and one consent', async () => {
    const s = await setup();
    const verifier = oauth.generateRandomCodeVerifier();
    const url = authorizationUrl(s.clientId, {
      scope: 'city.public.read',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
    const screen = await openConsentScreen(url, s.player);
    const answers = await Promise.all(Array.from({ length: 5 }, () => screen.answer('allow')));
    const codes = answers.map((r) => r.headers.get('location')).filter((l) => l?.includes('code='));
    assert.equal(codes.length, 1);
    assert.equal(await prisma().consent.count({ where: { appId: s.app.id } }), 1);
  });

  test('an app disabled while its screen was open is not redirected to', async () => {
    const s = await setup();
    const url = authorizationUrl(s.clientId, {
      scope: 'city.public.read',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const screen = await openConsentScreen(url, s.player);
    await disableApp(prisma(), appDirectory(prisma(), platform.platform.store), { operator: 'test' }, s.app.id);
    const response = await screen.answer('allow');
    assert.equal(response.status, 400);
    assert.equal(response.headers.get('location'), null);
  });

  test('a repeated return_to on sign-in is refused gracefully, never a 500', async () => {
    const response = await fetch(`${platform.playerClient}/signin?return_to=/a&return_to=/b`);
    assert.equal(response.status, 200);
  });

  test('an unknown client or an unregistered redirect URI never redirects, and the page shows what arrived', async () => {
    const s = await setup();
    const refused = async (url: string) => {
      const response = await fetch(url, { redirect: 'manual' });
      assert.equal(response.status, 400);
      assert.equal(response.headers.get('location'), null);
      const text = await response.text();
      assert.match(text, /Nothing was shared/);
      return text;
    };
    const unknown = await refused(authorizationUrl('svc_aaaaaaaaaaaaaaaaaaaaaaaaaa', { scope: 'city.public.read' }));
    assert.match(unknown, /client_id received<\/dt><dd><code>svc_aaaaaaaaaaaaaaaaaaaaaaaaaa<\/code>/);
    for (const sent of [
      'https://evil.example/cb',
      `${redirectUri}/`,
      'http://127.0.0.1:9/callback?"><script>x</script>',
    ]) {
      const text = await refused(authorizationUrl(s.clientId, { scope: 'city.public.read', redirect_uri: sent }));
      assert.match(text, /must match one registered for the app exactly/);
      const escaped = sent
        .replaceAll('&', '&amp;')
        .replaceAll('<', '&lt;')
        .replaceAll('>', '&gt;')
        .replaceAll('"', '&quot;');
      assert.ok(text.includes(`redirect_uri received</dt><dd><code>${escaped}</code>`), text);
      assert.ok(!text.includes('<script>x'), 'what arrived is shown as text, never as markup');
      for (const registered of [redirectUri, 'https://app.example.test/cb']) {
        assert.ok(text.includes(`<dd><code>${registered}</code></dd>`), `${registered} is listed beside it`);
      }
    }
  });

  test('"Not you?" on the consent screen signs out and comes back to the same request for the next player', async () => {
    const s = await setup();
    const other = await createPlayer(prisma(), s.developer.id, 'Grace');
    const url = authorizationUrl(s.clientId, {
      scope: 'city.public.read',
      code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()),
      code_challenge_method: 'S256',
    });
    const screen = await openConsentScreen(url, s.player);
    assert.match(screen.html, /Not Ada\? <button type="submit" class="link">Sign out<\/button>/);
    const out = await screen.notYou();
    assert.equal(out.status, 303);
    const location = out.headers.get('location') ?? '';
    const returnTo = new URL(location, platform.playerClient).searchParams.get('return_to') ?? '';
    assert.equal(`${platform.playerClient}${returnTo}`, url, 'back to the same authorization request');
    const next = await openConsentScreen(url, other);
    assert.match(next.html, /Signed in as Grace\./);
  });
});

describe('redeeming a code', () => {
  test('a wrong verifier, another redirect URI, another client or an expired code is invalid_grant', async () => {
    const s = await setup();
    const other = await setup();
    const wrongVerifier = await authorize(s);
    const answer = await rawToken(s, {
      grant_type: 'authorization_code',
      code: wrongVerifier.back.searchParams.get('code') as string,
      redirect_uri: redirectUri,
      code_verifier: oauth.generateRandomCodeVerifier(),
    });
    assert.equal(answer.json.error, 'invalid_grant');
    const wrongUri = await authorize(s);
    const uriAnswer = await rawToken(s, {
      grant_type: 'authorization_code',
      code: wrongUri.back.searchParams.get('code') as string,
      redirect_uri: 'https://app.example.test/cb',
      code_verifier: wrongUri.verifier,
    });
    assert.equal(uriAnswer.json.error, 'invalid_grant');
    const foreign = await authorize(s);
    const foreignAnswer = await rawToken(other, {
      grant_type: 'authorization_code',
      code: foreign.back.searchParams.get('code') as string,
      redirect_uri: redirectUri,
      code_verifier: foreign.verifier,
    });
    assert.equal(foreignAnswer.json.error, 'invalid_grant');
    const expired = await authorize(s);
    const code = expired.back.searchParams.get('code') as string;
    const key = `oidc:AuthorizationCode:{${createHash('sha256').update(code).digest('hex')}}`;
    const [stored] = await platform.platform.store.getMany([key]);
    await platform.platform.store.put(
      key,
      JSON.stringify({ ...JSON.parse(stored as string), exp: Math.floor(Date.now() / 1000) - 1 }),
      60,
    );
    const expiredAnswer = await rawToken(s, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: expired.verifier,
    });
    assert.equal(expiredAnswer.status, 400);
    assert.equal(expiredAnswer.json.error, 'invalid_grant');
    const unknown = await rawToken(s, {
      grant_type: 'authorization_code',
      code: 'sva_nothing',
      redirect_uri: redirectUri,
      code_verifier: expired.verifier,
    });
    assert.equal(unknown.json.error, 'invalid_grant');
  });

  test('the optional scope narrows the tokens to a subset of the consent; anything else is invalid_scope', async () => {
    const s = await setup();
    const narrow = await authorize(s);
    const narrowed = await rawToken(s, {
      grant_type: 'authorization_code',
      code: narrow.back.searchParams.get('code') as string,
      redirect_uri: redirectUri,
      code_verifier: narrow.verifier,
      scope: 'profile.basic.read',
    });
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.equal(narrowed.json.scope, 'profile.basic.read');
    assert.equal(decodeJwt(narrowed.json.access_token).scope, 'profile.basic.read');
    const s2 = await setup();
    const wide = await authorize(s2, 'city.public.read');
    const widened = await rawToken(s2, {
      grant_type: 'authorization_code',
      code: wide.back.searchParams.get('code') as string,
      redirect_uri: redirectUri,
      code_verifier: wide.verifier,
      scope: 'city.public.read profile.basic.read',
    });
    assert.equal(widened.status, 400);
    assert.equal(widened.json.error, 'invalid_scope');
  });

  test('a second redemption is invalid_grant and revokes the consent and everything under it', async () => {
    const s = await setup();
    const first = await tokens(s);
    const again = await rawToken(s, {
      grant_type: 'authorization_code',
      code: first.code,
      redirect_uri: redirectUri,
      code_verifier: first.verifier,
    });
    assert.equal(again.status, 400);
    assert.equal(again.json.error, 'invalid_grant');
    const consent = await consentOf(first.access_token);
    assert.equal(consent.status, 'revoked');
    assert.equal(consent.revocationReason, 'code_replay');
    const refreshed = await rawToken(s, { grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
    assert.equal(refreshed.json.error, 'invalid_grant');
    assert.equal(await prisma().outboxEvent.count({ where: { appId: s.app.id, type: 'consent.revoked' } }), 1);
  });

  test('a used code presented after it expired still revokes the consent', async () => {
    const s = await setup();
    const first = await tokens(s);
    const key = `oidc:AuthorizationCode:{${createHash('sha256').update(first.code).digest('hex')}}`;
    const [stored] = await platform.platform.store.getMany([key]);
    assert.ok(stored, 'the used code is remembered past its 120 s');
    await platform.platform.store.put(
      key,
      JSON.stringify({ ...JSON.parse(stored as string), exp: Math.floor(Date.now() / 1000) - 60 }),
      600,
    );
    const again = await rawToken(s, {
      grant_type: 'authorization_code',
      code: first.code,
      redirect_uri: redirectUri,
      code_verifier: first.verifier,
    });
    assert.equal(again.json.error, 'invalid_grant');
    assert.equal((await consentOf(first.access_token)).revocationReason, 'code_replay');
  });

  test('20 parallel redemptions of one code: at most one succeeds, and the consent ends', async () => {
    const s = await setup();
    const { back, verifier } = await authorize(s);
    const code = back.searchParams.get('code') as string;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        rawToken(s, { grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: verifier }),
      ),
    );
    const wins = answers.filter((a) => a.status === 200);
    assert.ok(wins.length <= 1, `${wins.length} redemptions succeeded`);
    assert.ok(
      answers.filter((a) => a.status !== 200).every((a) => a.status === 400 && a.json.error === 'invalid_grant'),
    );
    const consent = await prisma().consent.findFirstOrThrow({ where: { appId: s.app.id } });
    assert.equal(consent.status, 'revoked');
    for (const win of wins) {
      const refresh = await rawToken(s, { grant_type: 'refresh_token', refresh_token: win.json.refresh_token });
      assert.equal(refresh.json.error, 'invalid_grant');
    }
  });
});

describe('refresh tokens', () => {
  test('rotate on every use; presenting a rotated one kills the family and the consent', async () => {
    const s = await setup();
    const first = await tokens(s);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      s.client,
      s.auth,
      first.refresh_token as string,
      insecure,
    );
    const second = await oauth.processRefreshTokenResponse(as, s.client, response);
    assert.ok(second.refresh_token && second.refresh_token !== first.refresh_token);
    assert.equal(second.expires_in, 300);
    assert.equal(decodeJwt(second.access_token).sub, decodeJwt(first.access_token).sub);
    const replay = await rawToken(s, { grant_type: 'refresh_token', refresh_token: first.refresh_token as string });
    assert.equal(replay.json.error, 'invalid_grant');
    const current = await rawToken(s, { grant_type: 'refresh_token', refresh_token: second.refresh_token });
    assert.equal(current.json.error, 'invalid_grant', 'the whole family is dead');
    const consent = await consentOf(first.access_token);
    assert.equal(consent.revocationReason, 'refresh_token_replay');
  });

  test('scopes may narrow, never widen', async () => {
    const s = await setup();
    const { back, verifier, state } = await authorize(s, 'city.public.read');
    const first = await redeem(s, back, state, verifier);
    const widen = await rawToken(s, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token as string,
      scope: 'city.public.read profile.basic.read',
    });
    assert.equal(widen.json.error, 'invalid_scope');
    const full = await tokens(s);
    const narrowed = await rawToken(s, {
      grant_type: 'refresh_token',
      refresh_token: full.refresh_token as string,
      scope: 'profile.basic.read',
    });
    assert.equal(narrowed.status, 200, narrowed.text);
    assert.equal(narrowed.json.scope, 'profile.basic.read');
    assert.equal(decodeJwt(narrowed.json.access_token).scope, 'profile.basic.read');
  });

  test('20 parallel uses of one refresh token: at most one succeeds, and the consent ends', async () => {
    const s = await setup();
    const { refresh_token, access_token } = await tokens(s);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () =>
        rawToken(s, { grant_type: 'refresh_token', refresh_token: refresh_token as string }),
      ),
    );
    assert.ok(answers.filter((a) => a.status === 200).length <= 1);
    assert.ok(answers.filter((a) => a.status !== 200).every((a) => a.json.error === 'invalid_grant'));
    assert.equal((await consentOf(access_token)).status, 'revoked');
  });
});

describe('revocation of user tokens', () => {
  const revoke = (s: Setup, token: string) =>
    call(platform.base, '/oauth/revoke', {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(s.clientId, s.clientSecret),
      },
      body: new URLSearchParams({ token }).toString(),
    });

  test('revoking the refresh token ends the consent and the family', async () => {
    const s = await setup();
    const { refresh_token, access_token } = await tokens(s);
    const answer = await revoke(s, refresh_token as string);
    assert.equal(answer.status, 200);
    assert.equal(answer.text, '');
    const consent = await consentOf(access_token);
    assert.equal(consent.status, 'revoked');
    assert.equal(consent.revocationReason, 'token_revocation');
    assert.equal(
      (await rawToken(s, { grant_type: 'refresh_token', refresh_token: refresh_token as string })).json.error,
      'invalid_grant',
    );
  });

  test('revoking a user access token ends its consent too', async () => {
    const s = await setup();
    const { refresh_token, access_token } = await tokens(s);
    assert.equal((await revoke(s, access_token)).status, 200);
    assert.equal((await consentOf(access_token)).status, 'revoked');
    assert.equal(
      (await rawToken(s, { grant_type: 'refresh_token', refresh_token: refresh_token as string })).json.error,
      'invalid_grant',
    );
  });

  test("another app's refresh token is answered 200 and left alone", async () => {
    const mine = await setup();
    const theirs = await setup();
    const { refresh_token, access_token } = await tokens(theirs);
    assert.equal((await revoke(mine, refresh_token as string)).status, 200);
    assert.equal((await consentOf(access_token)).status, 'active');
  });
});

describe('Redis unreachable', () => {
  test('sign-in answers 503 (sessions live in Redis) and the token endpoint a 503 Problem for every grant: never a token', async () => {
    const broken = await startTestPlatform({ REDIS_URL: 'redis://127.0.0.1:1' }, { ready: false });
    try {
      const app = await createTestApp(broken.platform.database.prisma, {
        scopes: ['city.public.read'],
        redirectUris: [redirectUri],
      });
      const player = await createPlayer(broken.platform.database.prisma, app.developer.id);
      const url = new URL('/oauth/authorize', broken.playerClient);
      for (const [name, value] of Object.entries({
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: redirectUri,
        scope: 'city.public.read',
        code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
        code_challenge_method: 'S256',
        state: 's1',
      })) {
        url.searchParams.set(name, value);
      }
      // Sign-in needs a session, which lives in Redis: the page says the service is unavailable.
      const signIn = await consentOverHttp(url.href, player).catch((error: Error) => error);
      assert.ok(signIn instanceof Error && /sign-in failed: 503/.test(signIn.message), String(signIn));
      const answer = await call(broken.base, '/oauth/token', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(app.clientId, app.clientSecret),
        },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'anything' }).toString(),
      });
      assertProblem(answer, 503, 'SERVICE_UNAVAILABLE');
      // App lookups are checked against their version in Redis: no Redis, no token.
      const appToken = await call(broken.base, '/oauth/token', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(app.clientId, app.clientSecret),
        },
        body: 'grant_type=client_credentials',
      });
      assertProblem(appToken, 503, 'SERVICE_UNAVAILABLE');
    } finally {
      await broken.close();
    }
  });
});
