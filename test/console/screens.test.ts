// Every console, docs (the references too, as Redoc draws them) and player page in Chromium,
// signed in, on a 375 px phone and a 1280 px desktop: no page wider than its viewport, no serious
// or critical axe-core finding (WCAG 2.1 A and AA), the controls reached by Tab in the page's
// order. Then the console's script: the copy buttons copy (read back from the clipboard), the
// webhook signing secret stays masked until revealed, a call made while the request log is open
// appears in it within a second (filters kept), and with scripts off the pages are the plain
// ones. The docs show this platform's own addresses.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { createTestApp } from '@devplat/test/apps';
import { useBrowserRig } from '@devplat/test/browser';
import { authorizationRequest } from '@devplat/test/oauth';
import { createPlayer } from '@devplat/test/players';
import type { BrowserContext, Page } from 'playwright-core';
import { buildDocs } from '../../docs/build.ts';

const rig = useBrowserRig();
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const widths = [375, 1280] as const;

interface Finding {
  id: string;
  impact: string;
  nodes: string[];
}

// The code run in the page is written as expressions: this project's TypeScript has no DOM types.
/** axe-core's serious and critical WCAG 2.1 A/AA findings in the page: rule, impact, elements. */
const axeRun = `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
  .then(({ violations }) => violations
    .filter((each) => each.impact === 'serious' || each.impact === 'critical')
    .map((each) => ({ id: each.id, impact: each.impact, nodes: each.nodes.map((node) => node.target.join(' ')) })))`;

/**
 * axe-core's findings on the page. Its source goes in through page.evaluate (the DevTools
 * protocol), which the page's CSP does not govern: a <script> tag would be refused by script-src,
 * and the pages are tested under the CSP they are served with.
 */
async function axeFindings(page: Page): Promise<Finding[]> {
  await page.evaluate(axeSource);
  return page.evaluate<Finding[]>(axeRun);
}

/** How much wider than the viewport the page is (0: it fits). */
const overflow = (page: Page) =>
  page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');

/** Checks the page open in `page` at both widths; `name` says which in the failures. */
async function checkPage(page: Page, name: string) {
  for (const width of widths) {
    await page.setViewportSize({ width, height: 740 });
    assert.equal(await overflow(page), 0, `${name} at ${width} px: no sideways scrolling`);
    assert.deepEqual(await axeFindings(page), [], `${name} at ${width} px: no serious or critical axe finding`);
  }
}

async function register(page: Page) {
  await page.goto(`${rig.platform.console}/register`);
  await page.getByLabel('Email').fill(`screens-${Date.now()}@example.test`);
  await page.getByLabel('Display name').fill('Grace Hopper');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Your sandbox apps' }).waitFor();
}

/** Creates an app in the console: its client id and secret, the page left on the app's page. */
async function createApp(page: Page): Promise<{ clientId: string; clientSecret: string }> {
  await page.goto(`${rig.platform.console}/apps/new`);
  await page.getByLabel('Name').fill('Screens App');
  await page.getByLabel('Redirect URIs').fill(rig.callback);
  await page.getByLabel('city.public.read').check();
  await page.getByRole('button', { name: 'Create app' }).click();
  await page.getByRole('region', { name: 'New client secret' }).waitFor();
  return {
    clientId: (await page.getByTestId('client-id').textContent()) ?? '',
    clientSecret: (await page.getByTestId('client-secret').textContent()) ?? '',
  };
}

/** A client-credentials token request as the app: its answer's X-Request-ID. */
async function tokenCall(clientId: string, clientSecret: string): Promise<{ status: number; requestId: string }> {
  const response = await fetch(`${rig.platform.base}/oauth/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'city.public.read' }),
  });
  await response.arrayBuffer();
  return { status: response.status, requestId: response.headers.get('x-request-id') ?? '' };
}

/**
 * Numbers the page's keyboard stops in the page's order (what can take focus and is shown): how
 * many. Then the focus starts from the top.
 */
const numberStops = `(() => {
  const all = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')];
  const stops = all.filter((each) => each.tabIndex >= 0 && !each.disabled && each.checkVisibility());
  stops.forEach((each, index) => { each.dataset.stop = String(index); });
  document.activeElement?.blur();
  return stops.length;
})()`;

/** The page's keyboard stops, as Tab visits them from the top: each one's number (numberStops). */
async function tabOrder(page: Page): Promise<{ visited: number[]; count: number }> {
  const count = await page.evaluate<number>(numberStops);
  const visited: number[] = [];
  for (let index = 0; index < count; index++) {
    await page.keyboard.press('Tab');
    visited.push(Number(await page.evaluate<string>('document.activeElement?.dataset.stop ?? "-1"')));
  }
  return { visited, count };
}

describe('every page on a phone and a desktop, and the console script', () => {
  let context: BrowserContext;
  let page: Page;
  let app: { clientId: string; clientSecret: string };

  before(async () => {
    buildDocs(join(rig.platform.dataDir, 'docs'));
    context = await rig.browser.newContext({ viewport: { width: 375, height: 740 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: rig.platform.console });
    page = await context.newPage();
    await register(page);
    app = await createApp(page);
  });

  test('the console and its docs: no sideways scrolling and no serious axe finding, at 375 and 1280 px', async () => {
    const signedOut = await rig.browser.newPage();
    for (const path of ['/signin', '/register']) {
      await signedOut.goto(`${rig.platform.console}${path}`);
      await checkPage(signedOut, path);
    }
    await signedOut.close();

    // The pages that show a secret once, as they are answered.
    await createApp(page);
    await checkPage(page, 'a new app with its secret');
    await page.goto(`${rig.platform.console}/api-keys`);
    await page.getByLabel('Name').fill('CI deploy');
    await page.getByRole('button', { name: 'Create API key' }).click();
    await page.getByRole('region', { name: 'New API key' }).waitFor();
    await checkPage(page, 'a new API key');
    await page.goto(`${rig.platform.console}/players`);
    await page.getByLabel('Username').fill('screens-player');
    await page.getByLabel('Password').fill('a player password');
    await page.getByRole('button', { name: 'Create player' }).click();
    await page.getByRole('cell', { name: 'screens-player', exact: true }).waitFor();

    await tokenCall(app.clientId, app.clientSecret);
    await tokenCall(app.clientId, 'svs_wrong');
    const base = `/apps/${app.clientId}`;
    for (const path of [
      '/apps',
      '/apps/new',
      base,
      `${base}/edit`,
      `${base}/delete`,
      `${base}/requests`,
      `${base}/requests?status=4xx`,
      `${base}/history`,
      '/api-keys',
      '/players',
      '/account',
      '/docs/',
      '/docs/guide-app-developer.html',
    ]) {
      await page.setViewportSize({ width: 375, height: 740 });
      await page.goto(`${rig.platform.console}${path}`);
      await checkPage(page, path);
    }
    // The references, once Redoc has drawn them.
    for (const path of ['/docs/api-1.1.0.html', '/docs/api-1.0.0.html', '/docs/console-api.html']) {
      await page.setViewportSize({ width: 375, height: 740 });
      await page.goto(`${rig.platform.console}${path}`);
      await page.locator('.api-content').waitFor({ timeout: 20_000 });
      await checkPage(page, path);
    }
  });

  test('the player pages: sign-in, consent and a refusal, at 375 and 1280 px', async () => {
    const prisma = rig.platform.platform.database.prisma;
    const testApp = await createTestApp(prisma, {
      scopes: ['city.public.read', 'profile.basic.read'],
      redirectUris: [rig.callback],
    });
    const player = await createPlayer(prisma, testApp.developer.id, 'Ada Lovelace');
    const { url } = await authorizationRequest(
      rig.platform.base,
      testApp.clientId,
      rig.callback,
      'city.public.read profile.basic.read',
    );
    const playerPage = await rig.browser.newPage();
    await playerPage.goto(url);
    await checkPage(playerPage, 'player sign-in');
    await playerPage.getByLabel('Username').fill(player.username);
    await playerPage.getByLabel('Password').fill(player.password);
    await playerPage.getByRole('button', { name: 'Sign in' }).click();
    await playerPage.getByRole('button', { name: 'Allow' }).waitFor();
    await checkPage(playerPage, 'consent');
    await playerPage.goto(`${rig.platform.playerClient}/account/connected-apps`);
    await checkPage(playerPage, 'connected apps');
    await playerPage.goto(`${rig.platform.playerClient}/oauth/authorize?client_id=svc_aaaaaaaaaaaaaaaaaaaaaaaaaa`);
    await checkPage(playerPage, 'a refused authorization request');
    await playerPage.close();
  });

  test('Tab reaches every control of the app page and the request log, in the order they are read', async () => {
    for (const path of [`/apps/${app.clientId}`, `/apps/${app.clientId}/requests`, '/docs/guide-app-developer.html']) {
      await page.goto(`${rig.platform.console}${path}`);
      const { visited, count } = await tabOrder(page);
      assert.ok(count > 5, `${path}: its controls`);
      assert.deepEqual(
        visited,
        Array.from({ length: count }, (_, index) => index),
        `${path}: each control once, top to bottom`,
      );
    }
  });

  test('the copy buttons copy the client id, a new secret, a new API key, the signing secret and each snippet', async () => {
    const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');
    const copies = async (name: string, expected: string) => {
      const button = page.getByRole('button', { name, exact: true });
      await button.click();
      await page
        .getByRole('status')
        .filter({ hasText: `Copied ${name.replace(/^Copy /, '')}.` })
        .waitFor();
      assert.equal(await clipboard(), expected, name);
    };
    const made = await createApp(page);
    await copies('Copy client secret', made.clientSecret);
    await copies('Copy client ID', made.clientId);

    await page.goto(`${rig.platform.console}/apps/${made.clientId}`);
    const signingSecret = (await page.getByTestId('webhook-secret').textContent()) ?? '';
    assert.match(signingSecret, /^whsec_/);
    await copies('Copy webhook signing secret', signingSecret);
    for (const [language, heading] of [
      ['curl', 'curl'],
      ['javascript', 'JavaScript (Node 24, fetch)'],
      ['python', 'Python (requests)'],
    ] as const) {
      const details = page.locator('details', { has: page.getByTestId(`first-call-${language}`) });
      if ((await details.getAttribute('open')) === null) await details.locator('summary').click();
      const snippet = (await page.getByTestId(`first-call-${language}`).textContent()) ?? '';
      await copies(`Copy the ${heading} snippet`, snippet);
    }

    await page.goto(`${rig.platform.console}/api-keys`);
    await page.getByLabel('Name').fill('Copied key');
    await page.getByRole('button', { name: 'Create API key' }).click();
    const key = (await page.getByTestId('api-key').textContent()) ?? '';
    assert.match(key, /^devplat_key_/);
    await copies('Copy API key', key);
  });

  test('the webhook signing secret is masked until the developer reveals it', async () => {
    await page.goto(`${rig.platform.console}/apps/${app.clientId}`);
    const secret = page.getByTestId('webhook-secret');
    const value = (await secret.textContent()) ?? '';
    assert.match(value, /^whsec_/);
    assert.equal(await secret.isVisible(), false);
    // biome-ignore lint/performance/useDomNodeTextContent: what is on the screen
    assert.ok(!(await page.locator('main').innerText()).includes(value), 'not on the screen');
    await page.getByText('Reveal the signing secret', { exact: true }).click();
    await secret.waitFor({ state: 'visible' });
    // biome-ignore lint/performance/useDomNodeTextContent: what is on the screen
    assert.ok((await page.locator('main').innerText()).includes(value), 'on the screen once revealed');
  });

  test('a call made while the request log is open appears in it within a second, the filters kept', async () => {
    await page.goto(`${rig.platform.console}/apps/${app.clientId}/requests`);
    await page
      .getByRole('status')
      .filter({ hasText: 'Live: each new call appears at the top as it is answered.' })
      .waitFor();
    const allowed = await tokenCall(app.clientId, app.clientSecret);
    assert.equal(allowed.status, 200);
    const row = page.getByRole('row').filter({ hasText: allowed.requestId });
    await row.waitFor({ timeout: 1_000 });
    assert.match((await row.textContent()) ?? '', /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}:\d{2} UTCtoken200/);
    assert.equal(await page.locator('tbody tr').first().textContent(), await row.textContent(), 'at the top');

    // Filtered to 4xx: an allowed call stays out, a refused one comes in, marked as the server marks it.
    await page.getByLabel('Status').selectOption('4xx');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/status=4xx/);
    await page
      .getByRole('status')
      .filter({ hasText: /^Live:/ })
      .waitFor();
    const passed = await tokenCall(app.clientId, app.clientSecret);
    const refused = await tokenCall(app.clientId, 'svs_not_this_one');
    assert.equal(refused.status, 401);
    const refusedRow = page.getByRole('row').filter({ hasText: refused.requestId });
    await refusedRow.waitFor({ timeout: 1_000 });
    assert.match((await refusedRow.textContent()) ?? '', /token401invalid_client.*client authentication failed/);
    assert.equal(await page.getByRole('row').filter({ hasText: passed.requestId }).count(), 0);
  });

  test('with scripts off: no copy button, the secret still masked, the request log a paged table', async () => {
    const plain = await rig.browser.newContext({ javaScriptEnabled: false });
    const cookies = await context.cookies(rig.platform.console);
    await plain.addCookies(cookies);
    const noScript = await plain.newPage();
    await noScript.goto(`${rig.platform.console}/apps/${app.clientId}`);
    assert.equal(await noScript.getByRole('button', { name: /^Copy/ }).count(), 0);
    assert.equal(await noScript.getByTestId('webhook-secret').isVisible(), false);
    await noScript.getByText('Reveal the signing secret', { exact: true }).click();
    await noScript.getByTestId('webhook-secret').waitFor({ state: 'visible' });
    await noScript.goto(`${rig.platform.console}/apps/${app.clientId}/requests`);
    assert.ok((await noScript.getByRole('row').count()) > 1, 'the recorded calls');
    await plain.close();
  });

  test('the console pages allow their own script alone; the script is served as JavaScript', async () => {
    const response = await page.goto(`${rig.platform.console}/apps`);
    const policy = response?.headers()['content-security-policy'] ?? '';
    assert.equal(
      policy,
      "default-src 'none'; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'",
    );
    assert.equal(await page.locator('script:not([src])').count(), 0, 'no inline script');
    const script = await page.request.get(`${rig.platform.console}/assets/console.js`);
    assert.equal(script.status(), 200);
    assert.equal(script.headers()['content-type'], 'text/javascript; charset=utf-8');
    const playerSignIn = await fetch(`${rig.platform.playerClient}/signin`);
    assert.doesNotMatch(playerSignIn.headers.get('content-security-policy') ?? '', /script-src/);
  });

  test('the docs the console serves name its own addresses', async () => {
    assert.doesNotMatch(rig.platform.base, /:8080\//, 'the test platform is on other ports');
    await page.goto(`${rig.platform.console}/docs/`);
    const [exports] = await page.locator('main ol pre').allTextContents();
    assert.equal(exports?.split('\n')[0], `export BASE_URL=${rig.platform.base}`);
    await page.goto(`${rig.platform.console}/docs/guide-app-developer.html`);
    const guide = (await page.locator('main').textContent()) ?? '';
    assert.ok(guide.includes(rig.platform.base), 'BASE_URL is this platform’s');
    assert.ok(guide.includes(`${rig.platform.console}/downloads/devplat.tgz`), 'the CLI from this console');
    assert.ok(!guide.includes('127.0.0.1:8080') && !guide.includes('{base_url}'), 'no other address');
  });
});
