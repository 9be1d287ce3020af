// Interoperability: the whole app lifecycle with two more independent OAuth client libraries, each
// run unmodified and configured from the RFC 8414 metadata alone: Python Authlib (Debian's
// python3-authlib, test/interop/authlib_lifecycle.py) and @badgateway/oauth2-client. The player
// signs in and presses Allow over HTTP (test/support/players.ts); the libraries build the
// authorization URL with PKCE, redeem the code, refresh and revoke.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { OAuth2Client, OAuth2HttpError, type OAuth2Token } from '@badgateway/oauth2-client';
import { createTestApp } from '@devplat/test/apps';
import { type Answer, assertProblem, call } from '@devplat/test/http';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp, createPlayer } from '@devplat/test/players';
import { authlibVersion, python, skipWithoutAuthlib } from '@devplat/test/python';

const redirectUri = 'http://127.0.0.1:9/callback';
const userScope = 'city.public.read profile.basic.read';
// The registry holds more cities than the default limit of 25 (which answers 503, never a list cut short).
const cities = '/cities?limit=100';

let platform: TestPlatform;
let metadata: Record<string, string>;
before(async () => {
  platform = await startTestPlatform();
  metadata = (await call(platform.base, '/.well-known/oauth-authorization-server')).json;
});
after(() => platform.close());

/** A sandbox app allowed both scopes, and a player of its developer. */
async function appAndPlayer() {
  const prisma = platform.platform.database.prisma;
  const app = await createTestApp(prisma, { scopes: userScope.split(' '), redirectUris: [redirectUri] });
  return { ...app, player: await createPlayer(prisma, app.developer.id) };
}

const bearer = (path: string, token: string) =>
  call(platform.base, path, { headers: { authorization: `Bearer ${token}` } });

function assertCities(answer: Answer) {
  assert.equal(answer.status, 200, answer.text);
  assert.ok(answer.json.data.length > 0);
}

function assertMe(answer: Answer) {
  assert.equal(answer.status, 200, answer.text);
  assert.match(answer.json.sub, /^ps_[A-Za-z0-9_-]{32}$/);
  assert.equal(answer.json.display_name, 'Ada');
}

/** The token endpoint's answer as sent: the fields of a TokenResponse a user can see. */
interface TokenFacts {
  token_type: string;
  expires_in: number;
  scope: string;
  has_refresh_token: boolean;
}

function assertTokenFacts(facts: TokenFacts, scope: string, refresh: boolean) {
  assert.deepEqual(facts, { token_type: 'Bearer', expires_in: 300, scope, has_refresh_token: refresh });
}

describe(`Python Authlib ${authlibVersion ?? '(not installed)'}, OAuth2Session`, { skip: skipWithoutAuthlib }, () => {
  // biome-ignore lint/suspicious/noExplicitAny: the harness's JSON lines
  type Step = Record<string, any>;
  const steps = new Map<string, Step>();
  const authorizationUrls: URL[] = [];

  // The harness runs the whole lifecycle once; the tests below read what it saw at each step.
  before(async () => {
    const app = await appAndPlayer();
    const child = spawn(python, [new URL('../interop/authlib_lifecycle.py', import.meta.url).pathname], {
      env: {
        ...process.env,
        AUTHLIB_INSECURE_TRANSPORT: '1',
        DEVPLAT_BASE: platform.base,
        CLIENT_ID: app.clientId,
        CLIENT_SECRET: app.clientSecret,
        REDIRECT_URI: redirectUri,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      for await (const line of createInterface({ input: child.stdout })) {
        const { step, ...fields } = JSON.parse(line) as Step;
        if (step === 'authorize') {
          authorizationUrls.push(new URL(fields.url));
          child.stdin.write(`${(await consentOverHttp(fields.url, app.player)).href}\n`);
        } else {
          steps.set(step, fields);
        }
      }
    } finally {
      child.stdin.end(); // a harness still waiting for a redirect then fails instead of hanging
    }
    assert.equal(await exited, 0, stderr);
  });

  it('takes every endpoint from the RFC 8414 metadata at the path-inserted location', () => {
    const { url, ...endpoints } = steps.get('metadata') as Step;
    const issuer = new URL(platform.base);
    assert.equal(url, `${issuer.origin}/.well-known/oauth-authorization-server${issuer.pathname}`);
    assert.deepEqual(endpoints, {
      authorization_endpoint: metadata.authorization_endpoint,
      token_endpoint: metadata.token_endpoint,
      revocation_endpoint: metadata.revocation_endpoint,
    });
  });

  for (const method of ['client_secret_basic', 'client_secret_post']) {
    it(`client_credentials with ${method}: a 300 s Bearer app token, no refresh token; /cities answers 200`, () => {
      const { token, cities } = steps.get(`client_credentials:${method}`) as Step;
      assertTokenFacts(token, 'city.public.read', false);
      assert.equal(cities.status, 200);
      assert.ok(cities.body.data > 0);
    });
  }

  it('authorization code with PKCE S256 through the consent screen: a 300 s Bearer user token and a refresh token', () => {
    assert.equal(authorizationUrls.length, 2);
    for (const url of authorizationUrls) {
      assert.equal(`${url.origin}${url.pathname}`, metadata.authorization_endpoint);
      assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
      assert.match(url.searchParams.get('code_challenge') ?? '', /^[\w-]{43}$/);
    }
    assertTokenFacts(steps.get('rotation:code')?.token, userScope, true);
    assertTokenFacts(steps.get('revocation:code')?.token, userScope, true);
  });

  it('/cities and /me answer 200 with the user token; /me has a ps_ subject', () => {
    const { cities, me } = steps.get('rotation:api') as Step;
    assert.equal(cities.status, 200);
    assert.ok(cities.body.data > 0);
    assert.equal(me.status, 200);
    assert.match(me.body.sub, /^ps_[A-Za-z0-9_-]{32}$/);
    assert.equal(me.body.display_name, 'Ada');
  });

  it('refresh rotates the refresh token; the old one is then refused with invalid_grant', () => {
    const { token, rotated, new_access_token, me } = steps.get('rotation:refresh') as Step;
    assertTokenFacts(token, userScope, true);
    assert.equal(rotated, true);
    assert.equal(new_access_token, true);
    assert.equal(me.status, 200);
    assert.equal(me.body.sub, steps.get('rotation:api')?.me.body.sub);
    assert.equal(steps.get('rotation:old_refresh')?.error, 'invalid_grant');
  });

  it('revocation answers 200 with an empty body; /me then answers 403 CONSENT_REVOKED', () => {
    assert.equal(steps.get('revocation:api')?.me.status, 200);
    const { status, body, me } = steps.get('revocation:revoke') as Step;
    assert.equal(status, 200);
    assert.equal(body, '');
    assert.equal(me.status, 403);
    assert.equal(me.body.code, 'CONSENT_REVOKED');
  });
});

const badgatewayVersion = JSON.parse(
  readFileSync(new URL('../node_modules/@badgateway/oauth2-client/package.json', import.meta.url), 'utf8'),
).version as string;

describe(`@badgateway/oauth2-client ${badgatewayVersion}`, () => {
  type Method = 'client_secret_basic' | 'client_secret_post';
  /** What went over the wire, without secrets: how the client authenticated, and the raw answer. */
  interface Exchange {
    url: string;
    basic: boolean;
    formSecret: boolean;
    status: number;
    contentType: string | null;
    body: string;
  }
  const exchanges: Exchange[] = [];
  // The library's documented fetch setting, recording each exchange: the library keeps only
  // accessToken, refreshToken and expiresAt of a token answer, and nothing of a revocation's.
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    exchanges.push({
      url: String(input),
      basic: new Headers(init?.headers).get('authorization')?.startsWith('Basic ') ?? false,
      formSecret: new URLSearchParams(typeof init?.body === 'string' ? init.body : '').has('client_secret'),
      status: response.status,
      contentType: response.headers.get('content-type'),
      body: await response.clone().text(),
    });
    return response;
  };
  const lastTokenAnswer = (): TokenFacts => {
    const { access_token, refresh_token, ...rest } = JSON.parse(exchanges.at(-1)?.body ?? '');
    assert.equal(typeof access_token, 'string');
    return { ...rest, has_refresh_token: typeof refresh_token === 'string' } as TokenFacts;
  };

  let app: Awaited<ReturnType<typeof appAndPlayer>>;
  before(async () => {
    app = await appAndPlayer();
  });
  const client = (authenticationMethod: Method) =>
    new OAuth2Client({
      server: platform.base,
      discoveryEndpoint: `${platform.base}/.well-known/oauth-authorization-server`,
      clientId: app.clientId,
      clientSecret: app.clientSecret,
      authenticationMethod,
      fetch: recordingFetch,
    });

  /** The authorization request the library builds, the player's Allow, the code's redemption. */
  async function authorize(oauth: OAuth2Client) {
    const codeVerifier = crypto.randomUUID() + crypto.randomUUID();
    const state = crypto.randomUUID();
    const url = await oauth.authorizationCode.getAuthorizeUri({
      redirectUri,
      state,
      codeVerifier,
      scope: userScope.split(' '),
    });
    const callback = await consentOverHttp(url, app.player);
    const token = await oauth.authorizationCode.getTokenFromCodeRedirect(callback, {
      redirectUri,
      state,
      codeVerifier,
    });
    return { url: new URL(url), token };
  }

  it('takes every endpoint from the RFC 8414 metadata', async () => {
    const oauth = client('client_secret_basic');
    assert.equal(await oauth.getEndpoint('tokenEndpoint'), metadata.token_endpoint);
    assert.equal(await oauth.getEndpoint('authorizationEndpoint'), metadata.authorization_endpoint);
    assert.equal(await oauth.getEndpoint('revocationEndpoint'), metadata.revocation_endpoint);
    assert.deepEqual(
      exchanges.map(({ url, status }) => ({ url, status })),
      [{ url: `${platform.base}/.well-known/oauth-authorization-server`, status: 200 }],
    );
  });

  for (const method of ['client_secret_basic', 'client_secret_post'] as const) {
    it(`client_credentials with ${method}: a 300 s Bearer app token, no refresh token; /cities answers 200`, async () => {
      const token = await client(method).clientCredentials({ scope: ['city.public.read'] });
      const sent = exchanges.at(-1) as Exchange;
      assert.equal(sent.url, metadata.token_endpoint);
      assert.deepEqual([sent.basic, sent.formSecret], method === 'client_secret_basic' ? [true, false] : [false, true]);
      assertTokenFacts(lastTokenAnswer(), 'city.public.read', false);
      assert.equal(token.refreshToken, null);
      assertCities(await bearer(cities, token.accessToken));
    });
  }

  let first: OAuth2Token;
  let sub: string;
  it('authorization code with PKCE S256 through the consent screen: a 300 s Bearer user token and a refresh token', async () => {
    const { url, token } = await authorize(client('client_secret_basic'));
    assert.equal(`${url.origin}${url.pathname}`, metadata.authorization_endpoint);
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assertTokenFacts(lastTokenAnswer(), userScope, true);
    first = token;
  });

  it('/cities and /me answer 200 with the user token; /me has a ps_ subject', async () => {
    assertCities(await bearer(cities, first.accessToken));
    const me = await bearer('/me', first.accessToken);
    assertMe(me);
    sub = me.json.sub;
  });

  it('refresh rotates the refresh token; the old one is then refused with invalid_grant', async () => {
    const oauth = client('client_secret_basic');
    const second = await oauth.refreshToken(first);
    assertTokenFacts(lastTokenAnswer(), userScope, true);
    assert.notEqual(second.refreshToken, first.refreshToken);
    const me = await bearer('/me', second.accessToken);
    assertMe(me);
    assert.equal(me.json.sub, sub);
    await assert.rejects(oauth.refreshToken(first), (error) => {
      assert.ok(error instanceof OAuth2HttpError);
      assert.equal(error.httpCode, 400);
      assert.equal(error.oauth2Code, 'invalid_grant');
      return true;
    });
  });

  it('revocation with client_secret_post answers 200 with an empty body; /me then answers 403 CONSENT_REVOKED', async () => {
    const oauth = client('client_secret_post');
    const { token } = await authorize(oauth);
    assertMe(await bearer('/me', token.accessToken));
    assert.equal(await oauth.revoke(token, 'refresh_token'), undefined);
    const answer = exchanges.at(-1) as Exchange;
    assert.deepEqual(
      { url: answer.url, formSecret: answer.formSecret, status: answer.status, body: answer.body },
      { url: metadata.revocation_endpoint, formSecret: true, status: 200, body: '' },
    );
    assertProblem(await bearer('/me', token.accessToken), 403, 'CONSENT_REVOKED');
  });
});
