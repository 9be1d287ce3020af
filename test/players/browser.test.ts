// A player in a real browser (Debian's Chromium through playwright-core): the app sends them to
// the consent screen, they sign in and allow or decline, and the app's own server receives the
// answer and redeems the code with oauth4webapi.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestApp } from '@devplat/test/apps';
import { useBrowserRig } from '@devplat/test/browser';
import { authorizationRequest, redeemCode } from '@devplat/test/oauth';
import { createPlayer } from '@devplat/test/players';
import { decodeJwt } from 'jose';

const rig = useBrowserRig();

async function start(decision: 'Allow' | 'Not now') {
  const prisma = rig.platform.platform.database.prisma;
  const app = await createTestApp(prisma, {
    scopes: ['city.public.read', 'profile.basic.read'],
    redirectUris: [rig.callback],
  });
  const player = await createPlayer(prisma, app.developer.id, 'Ada Lovelace');
  const { url, state, verifier } = await authorizationRequest(
    rig.platform.base,
    app.clientId,
    rig.callback,
    'city.public.read profile.basic.read',
  );

  const context = await rig.browser.newContext();
  const page = await context.newPage();
  await page.goto(url);
  await page.getByLabel('Username').fill(player.username);
  await page.getByLabel('Password').fill(player.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the player reads
  const consentText = await page.locator('main').innerText();
  await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/consent-screen.png` });
  const cookies = await context.cookies(rig.platform.playerClient);
  await page.getByRole('button', { name: decision }).click();
  await page.waitForURL((current) => current.href.startsWith(rig.callback));
  const back = new URL(page.url());
  await context.close();
  return { app, player, verifier, state, back, consentText, cookies };
}

describe('the consent screen in Chromium', () => {
  test('sign in, see what is asked, Allow, and the app redeems its code', async () => {
    const { app, player, verifier, state, back, consentText, cookies } = await start('Allow');
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
    assert.equal(back.searchParams.get('iss'), rig.platform.base);
    const tokens = await redeemCode(rig.platform.base, app, back, rig.callback, state, verifier, 'client_secret_post');
    assert.equal(decodeJwt(tokens.accessToken).sub, shownId, 'the app sees the ID the player was shown');
    assert.ok(tokens.refreshToken);
  });

  test('Not now sends the browser back with access_denied', async () => {
    const { back, state } = await start('Not now');
    assert.equal(back.searchParams.get('error'), 'access_denied');
    assert.equal(back.searchParams.get('state'), state);
    assert.equal(back.searchParams.get('code'), null);
  });

  test('pages forbid framing and carry no-store', async () => {
    for (const path of ['/signin', '/oauth/authorize?client_id=svc_aaaaaaaaaaaaaaaaaaaaaaaaaa']) {
      const response = await fetch(`${rig.platform.playerClient}${path}`);
      assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
      assert.equal(response.headers.get('cache-control'), 'no-store');
    }
  });
});
