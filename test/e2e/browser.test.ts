// A player in a real browser (Debian's Chromium through playwright-core): the app sends them to
// the consent screen, they sign in and allow or decline, and the app's own server receives the
// answer and redeems the code with oauth4webapi.
import assert from 'node:assert/strict';
import type { Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { createTestApp } from '@devplat/test/apps';
import { launchChromium, startAppServer } from '@devplat/test/browser';
import { discover, insecure } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer } from '@devplat/test/players';
import { decodeJwt } from 'jose';
import * as oauth from 'oauth4webapi';
import type { Browser } from 'playwright-core';

let platform: TestPlatform;
let browser: Browser;
let appServer: Server;
let callback: string;

before(async () => {
  platform = await startTestPlatform();
  ({ server: appServer, callback } = await startAppServer());
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  appServer?.close();
  await platform?.close();
});

async function start(decision: 'Allow' | 'Not now') {
  const prisma = platform.platform.database.prisma;
  const app = await createTestApp(prisma, {
    scopes: ['city.public.read', 'profile.basic.read'],
    redirectUris: [callback],
  });
  const player = await createPlayer(prisma, app.developer.id, 'Ada Lovelace');
  const as = await discover(platform.base);
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint as string);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: app.clientId,
    redirect_uri: callback,
    scope: 'city.public.read profile.basic.read',
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  }).toString();

  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(url.href);
  await page.getByLabel('Username').fill(player.username);
  await page.getByLabel('Password').fill(player.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the player reads
  const consentText = await page.locator('main').innerText();
  await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/consent-screen.png` });
  const cookies = await context.cookies(platform.playerClient);
  await page.getByRole('button', { name: decision }).click();
  await page.waitForURL((current) => current.href.startsWith(callback));
  const back = new URL(page.url());
  await context.close();
  return { app, player, as, verifier, state, back, consentText, cookies };
}

describe('the consent screen in Chromium', () => {
  test('sign in, see what is asked, Allow, and the app redeems its code', async () => {
    const { app, player, as, verifier, state, back, consentText, cookies } = await start('Allow');
    assert.match(consentText, /Test App wants to connect to your account/);
    assert.match(consentText, /Signed in as Ada Lovelace/);
    assert.match(consentText, /See the public list of cities/);
    assert.match(consentText, /See the display name you chose/);
    assert.match(consentText, /127\.0\.0\.1:\d+/);
    const shownId = /ps_[A-Za-z0-9_-]{32}/.exec(consentText)?.[0];
    assert.ok(shownId, 'the pairwise ID is shown');
    assert.ok(!consentText.includes(player.player.id), 'never the player id');

    const session = cookies.find((cookie) => cookie.name === 'player_session');
    assert.ok(session?.httpOnly);
    assert.equal(session?.sameSite, 'Lax');

    assert.match(back.searchParams.get('code') ?? '', /^sva_/);
    assert.equal(back.searchParams.get('iss'), platform.base);
    const client = { client_id: app.clientId };
    const params = oauth.validateAuthResponse(as, client, back, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      oauth.ClientSecretPost(app.clientSecret),
      params,
      callback,
      verifier,
      insecure,
    );
    const result = await oauth.processAuthorizationCodeResponse(as, client, response);
    assert.equal(decodeJwt(result.access_token).sub, shownId, 'the app sees the ID the player was shown');
    assert.ok(result.refresh_token);
  });

  test('Not now sends the browser back with access_denied', async () => {
    const { back, state } = await start('Not now');
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), state);
    assert.equal(back.searchParams.get('code'), null);
  });

  test('pages forbid framing and carry no-store', async () => {
    for (const path of ['/signin', '/oauth/authorize?client_id=svc_aaaaaaaaaaaaaaaaaaaaaaaaaa']) {
      const response = await fetch(`${platform.playerClient}${path}`);
      assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.equal(response.headers.get('cache-control'), 'no-store');
    }
  });
});
