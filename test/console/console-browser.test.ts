// The developer console's web UI in Chromium: register, create a sandbox app (its secret shown
// once, its first call's snippets run as written), rotate and revoke secrets, create a sandbox
// player, send a test webhook, disable the app, and then run the consent flow with the app and
// player made in the console up to a GET /me. The navigation's Docs link reaches the docs home.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, describe, test } from 'node:test';
import { hashPassword } from '@devplat/passwords';
import { useBrowserRig } from '@devplat/test/browser';
import { call } from '@devplat/test/http';
import { authorizationRequest, redeemCode } from '@devplat/test/oauth';
import { createPlayers } from '@devplat/test/players';
import { runProcess } from '@devplat/test/process';
import { python, skipWithoutAuthlib } from '@devplat/test/python';
import type { Page } from 'playwright-core';
import { packCli } from '../../cli/scripts/pack.ts';
import { buildDocs } from '../../docs/build.ts';

const rig = useBrowserRig();

async function register(page: Page, email: string) {
  await page.goto(`${rig.platform.console}/register`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Display name').fill('Grace Hopper');
  await page.getByLabel('Password').fill('a long enough password');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Your sandbox apps' }).waitFor();
}

/** How each first-call snippet of an app's page runs: its file and command. */
const snippetRunners = {
  curl: { file: 'first-call.sh', command: 'bash', args: ['-euo', 'pipefail'] },
  javascript: { file: 'first-call.mjs', command: process.execPath, args: [] },
  python: { file: 'first-call.py', command: python, args: [] },
} as const;

/** Runs a snippet as the developer pastes it, with the client secret in CLIENT_SECRET: what it prints. */
async function runSnippet(language: keyof typeof snippetRunners, code: string, clientSecret: string) {
  const { file, command, args } = snippetRunners[language];
  const dir = mkdtempSync(join(tmpdir(), 'first-call-'));
  try {
    writeFileSync(join(dir, file), code);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir, CLIENT_SECRET: clientSecret };
    const result = await runProcess(command, [...args, file], { cwd: dir, env }).done;
    assert.equal(result.code, 0, `${language}: ${result.stderr}`);
    return result.stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The city names the API answers the app, one a line, as the snippets print them. */
async function cityNames(clientId: string, clientSecret: string): Promise<string> {
  const token = await call(rig.platform.base, '/oauth/token', {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'city.public.read' }),
  });
  const cities = await call(rig.platform.base, '/cities?limit=100', {
    headers: { authorization: `Bearer ${token.json.access_token}` },
  });
  const names = (cities.json.data as { name: string }[]).map((city) => city.name);
  assert.ok(names.length > 0);
  return `${names.join('\n')}\n`;
}

describe('the developer console in Chromium', () => {
  // The docs the console serves at /docs and the CLI it serves at /downloads, as npm start builds
  // them (once the rig has started): the docs home links the download.
  before(async () => {
    await buildDocs(join(rig.platform.dataDir, 'docs'));
    await packCli(join(rig.platform.dataDir, 'cli'));
  });

  test('from registration to a first GET /me with an app and a player made in the console', async () => {
    const context = await rig.browser.newContext();
    const page = await context.newPage();
    await register(page, `console-${Date.now()}@example.test`);
    const cookie = (await context.cookies(rig.platform.console)).find((c) => c.name === 'console_session');
    assert.ok(cookie?.httpOnly, 'the session cookie is HttpOnly');
    assert.equal(cookie?.sameSite, 'Strict');

    await page.getByRole('link', { name: 'Create app' }).click();
    await page.getByLabel('Name').fill('Console App');
    await page.getByLabel('Redirect URIs').fill(rig.callback);
    await page.getByLabel('city.public.read').check();
    await page.getByLabel('profile.basic.read').check();
    await page.getByLabel('Webhook URL').fill('https://hooks.example.test/consent');
    await page.getByRole('button', { name: 'Create app' }).click();
    const secretBox = page.getByRole('region', { name: 'New client secret' });
    await secretBox.waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: what the developer reads
    assert.match(await secretBox.innerText(), /shown only once/);
    const clientSecret = (await page.getByTestId('client-secret').textContent()) ?? '';
    const clientId = (await page.getByTestId('client-id').textContent()) ?? '';
    assert.match(clientSecret, /^svs_/);
    assert.match(clientId, /^svc_[a-z2-7]{26}$/);
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/console-app.png`, fullPage: true });

    // The secret is not on the page any more once it is left.
    await page.goto(`${rig.platform.console}/apps/${clientId}`);
    assert.ok(!(await page.content()).includes(clientSecret));

    // Times read as people write them; the exact instant is the element's datetime and title.
    const created = page.getByRole('row', { name: /^Created/ }).locator('time');
    const iso = (await created.getAttribute('datetime')) ?? '';
    assert.match(iso, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    assert.equal(await created.getAttribute('title'), iso);
    assert.ok(Math.abs(Date.parse(iso) - Date.now()) < 60_000, 'the app was made just now');
    const readable = (await created.textContent()) ?? '';
    assert.match(readable, /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2} UTC$/);
    assert.ok(readable.includes(`${iso.slice(0, 4)}, ${iso.slice(11, 16)} UTC`), `${readable} is ${iso}`);
    assert.equal(await page.locator('time:not([datetime])').count(), 0, 'every time with its instant');

    // Its first call, in three languages: the client id and the API's URLs written in, the secret
    // read from the environment. Each runs as written and prints the cities.
    await page.getByRole('heading', { name: 'First call' }).waitFor();
    const cities = await cityNames(clientId, clientSecret);
    for (const language of ['curl', 'javascript', 'python'] as const) {
      const snippet = (await page.getByTestId(`first-call-${language}`).textContent()) ?? '';
      assert.ok(snippet.includes(clientId), `${language}: the client id`);
      assert.ok(snippet.includes(`${rig.platform.base}/oauth/token`), `${language}: the token URL`);
      assert.ok(snippet.includes('CLIENT_SECRET'), `${language}: the secret from the environment`);
      if (language === 'python' && skipWithoutAuthlib) continue; // python3-requests is missing here
      assert.equal(await runSnippet(language, snippet, clientSecret), cities, `${language} prints the cities`);
    }
    assert.ok(!(await page.content()).includes(clientSecret), 'no secret anywhere on the page');
    const records = page.getByRole('navigation', { name: "This app's records" });
    await records.getByRole('link', { name: 'History', exact: true }).waitFor();
    await page.getByRole('link', { name: 'create a sandbox player', exact: true }).waitFor();

    // The snippets' token calls are on the app's request log, linked from its page.
    await records.getByRole('link', { name: 'Request log', exact: true }).click();
    await page.waitForURL(`${rig.platform.console}/apps/${clientId}/requests`);
    await page.getByRole('heading', { name: /^Request log of / }).waitFor();
    const tokenRows = page.getByRole('row').filter({ hasText: /token\s*200/ });
    await tokenRows.first().waitFor();
    assert.ok((await tokenRows.count()) >= 2, 'a token call per snippet run');
    assert.match((await tokenRows.first().textContent()) ?? '', /req_[0-9a-f]{32}/);
    await page.goBack();

    // The navigation's Docs link: the docs home, a first token before anything else, then pages
    // that all answer.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Docs' }).click();
    await page.waitForURL(`${rig.platform.console}/docs/`);
    assert.equal(await page.locator('main > :nth-child(2)').textContent(), 'Get a token in 5 minutes');
    const hrefs = await page.locator('a[href]').evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href')));
    const links = hrefs.map((href) => new URL(href ?? '', page.url()).href);
    assert.ok(links.includes(`${rig.platform.console}/docs/guide-app-developer.html`), 'the guide');
    for (const link of new Set(links)) {
      assert.equal((await page.request.get(link)).status(), 200, link);
    }
    await page.goto(`${rig.platform.console}/apps/${clientId}`);

    // Rotation: a second secret shown once, then the first one revoked.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await secretBox.waitFor();
    const newSecret = (await page.getByTestId('client-secret').textContent()) ?? '';
    assert.notEqual(newSecret, clientSecret);
    await page
      .getByRole('button', { name: /^Revoke secret/ })
      .first()
      .click();
    await page.getByText('Revoked the secret.').waitFor();
    assert.equal(await page.getByRole('button', { name: /^Revoke secret/ }).count(), 1);

    await page.getByRole('button', { name: 'Send test webhook' }).click();
    await page.getByText(/Queued a signed test webhook/).waitFor();
    await page.getByLabel('Webhook URL').fill('https://hooks.example.test/moved');
    await page.getByRole('button', { name: 'Save webhook URL' }).click();
    await page.getByText('Saved the webhook URL.').waitFor();
    assert.equal(await page.getByLabel('Webhook URL').inputValue(), 'https://hooks.example.test/moved');

    // A sandbox player to sign in with.
    await page.getByRole('link', { name: 'Sandbox players' }).click();
    await page.getByLabel('Username').fill(`tess-${Date.now()}`);
    const username = await page.getByLabel('Username').inputValue();
    await page.getByLabel('Password').fill('player password');
    await page.getByLabel('Display name').fill('Tess Tester');
    await page.getByRole('button', { name: 'Create player' }).click();
    await page.getByText(`Created the sandbox player ${username}.`).waitFor();
    await page.getByRole('cell', { name: 'Tess Tester' }).waitFor();

    // The app (acting as the developer's server) sends the player through the consent screen.
    const { url, state, verifier } = await authorizationRequest(
      rig.platform.base,
      clientId,
      rig.callback,
      'profile.basic.read',
    );
    const player = await rig.browser.newContext();
    const playerPage = await player.newPage();
    await playerPage.goto(url);
    await playerPage.getByLabel('Username').fill(username);
    await playerPage.getByLabel('Password').fill('player password');
    await playerPage.getByRole('button', { name: 'Sign in' }).click();
    await playerPage.getByRole('button', { name: 'Allow' }).click();
    await playerPage.waitForURL((url) => url.href.startsWith(rig.callback));
    const app = { clientId, clientSecret: newSecret };
    const tokens = await redeemCode(rig.platform.base, app, new URL(playerPage.url()), rig.callback, state, verifier);
    const me = await call(rig.platform.base, '/me', { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    assert.equal(me.status, 200);
    assert.equal(me.json.display_name, 'Tess Tester');
    await player.close();

    // The app's page charts today's consent and the webhook deliveries, drawn on the server.
    await page.goto(`${rig.platform.console}/apps/${clientId}`);
    const today = new Date().toISOString().slice(0, 10);
    const consents = page.getByRole('img', { name: 'Consents per day, last 30 days' });
    const granted = consents.locator(`g[data-day="${today}"] rect[data-series="granted"]`);
    assert.equal(await granted.getAttribute('data-count'), '1');
    assert.match(
      (await consents.locator(`g[data-day="${today}"] > title`).textContent()) ?? '',
      /1 granted, 0 withdrawn/,
    );
    const deliveries = page.getByRole('img', { name: 'Webhook deliveries per day by outcome, last 30 days' });
    const counts = await deliveries
      .locator(`g[data-day="${today}"] rect[data-count]`)
      .evaluateAll((rects) => rects.map((rect) => Number(rect.getAttribute('data-count'))));
    assert.ok(counts.reduce((sum, count) => sum + count, 0) >= 1, 'the test webhook at least');
    const scripts = await page
      .locator('script')
      .evaluateAll((each) => each.map((script) => script.getAttribute('src')));
    assert.deepEqual(scripts, ['/assets/console.js'], 'the charts need no script: only the console’s own file');
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/console-charts.png`, fullPage: true });

    // Disabling the app stops the token on its next use.
    await page.goto(`${rig.platform.console}/apps/${clientId}`);
    await page.getByRole('button', { name: 'Disable app' }).click();
    await page.getByText('Disabled the app.').waitFor();
    const refused = await call(rig.platform.base, '/me', {
      headers: { authorization: `Bearer ${tokens.accessToken}` },
    });
    assert.equal(refused.status, 401);
    await context.close();
  });

  test('an app edited, disabled, enabled and deleted, and a player disabled, on the pages', async () => {
    const context = await rig.browser.newContext();
    const page = await context.newPage();
    const email = `editor-${Date.now()}@example.test`;
    await register(page, email);
    await page.getByRole('link', { name: 'Create app' }).click();
    await page.getByLabel('Name').fill('Mistyped');
    await page.getByLabel('Redirect URIs').fill('https://mistyped.example.test/calback');
    await page.getByLabel('city.public.read').check();
    await page.getByLabel('profile.basic.read').check();
    await page.getByRole('button', { name: 'Create app' }).click();
    const clientId = (await page.getByTestId('client-id').textContent()) ?? '';

    // The edit form comes filled in; a bad URI is refused on the form, keeping what was typed.
    await page.getByRole('link', { name: 'Edit name, redirect URIs and scopes' }).click();
    assert.equal(await page.getByLabel('Name').inputValue(), 'Mistyped');
    assert.equal(await page.getByLabel('Redirect URIs').inputValue(), 'https://mistyped.example.test/calback');
    assert.ok(await page.getByLabel('profile.basic.read').isChecked());
    await page.getByLabel('Name').fill('Fixed');
    await page.getByLabel('Redirect URIs').fill('http://mistyped.example.test/callback');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('alert').filter({ hasText: /http/ }).waitFor();
    assert.equal(await page.getByLabel('Name').inputValue(), 'Fixed', 'what was typed stays');
    await page.getByLabel('Redirect URIs').fill(`https://mistyped.example.test/callback\n${rig.callback}`);
    await page.getByLabel('profile.basic.read').uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText(/Saved Fixed\. Removed profile\.basic\.read/).waitFor();
    await page.getByRole('heading', { name: 'Fixed' }).waitFor();
    assert.equal(await page.getByTestId('client-id').textContent(), clientId, 'the client id stays');
    await page.getByRole('cell', { name: `https://mistyped.example.test/callback ${rig.callback}` }).waitFor();

    // Disabled, then enabled again.
    await page.getByRole('button', { name: 'Disable app' }).click();
    await page.getByText('Disabled the app.').waitFor();
    await page.getByRole('button', { name: 'Enable app' }).click();
    await page.getByText('Enabled the app.').waitFor();
    await page.getByRole('button', { name: 'Disable app' }).waitFor();

    // Deleted, after a page that says what it does.
    await page.getByRole('link', { name: 'Delete app…' }).click();
    await page.getByText(/never used again/).waitFor();
    await page.getByRole('button', { name: 'Delete app for good' }).click();
    await page.getByText(`Deleted Fixed (${clientId}).`).waitFor();
    await page.getByRole('heading', { name: 'Your sandbox apps' }).waitFor();
    assert.equal(await page.getByRole('cell', { name: clientId }).count(), 0, 'gone from the list');

    // A sandbox player, disabled and enabled.
    await page.getByRole('link', { name: 'Sandbox players' }).click();
    const username = `dora-${Date.now()}`;
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill('player password');
    await page.getByRole('button', { name: 'Create player' }).click();
    await page.getByRole('button', { name: `Disable ${username}` }).click();
    await page.getByText(`Disabled ${username}: their tokens answer 403 ACCESS_DENIED`).waitFor();
    await page.getByRole('cell', { name: 'disabled' }).waitFor();
    await page.getByRole('button', { name: `Enable ${username}` }).click();
    await page.getByText(`Enabled ${username} again.`).waitFor();

    // More than a page of players: 50 a page, oldest first; Next page carries the cursor, and a
    // button pressed on the second page (its form's CSRF token and all) comes back to that page.
    const prisma = rig.platform.platform.database.prisma;
    const account = await prisma.account.findUniqueOrThrow({ where: { email } });
    await createPlayers(prisma, account.id, 50);
    const [newest] = await prisma.sandboxPlayer.findMany({
      where: { accountId: account.id },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: 1,
    });
    await page.goto(`${rig.platform.console}/players`);
    assert.equal(await page.getByRole('button', { name: /^(Disable|Enable) / }).count(), 50, 'a page of 50');
    await page.getByRole('button', { name: `Disable ${username}` }).waitFor();
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByRole('button', { name: `Disable ${newest?.username}` }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^(Disable|Enable) / }).count(), 1, 'the 51st alone');
    assert.equal(await page.getByRole('link', { name: 'Next page' }).count(), 0, 'the last page');
    const secondPage = page.url();
    assert.match(secondPage, /\/players\?cursor=/);
    await page.getByRole('button', { name: `Disable ${newest?.username}` }).click();
    await page.getByText(`Disabled ${newest?.username}: their tokens answer 403 ACCESS_DENIED`).waitFor();
    assert.equal(page.url(), secondPage, 'back on the second page');
    await page.getByRole('button', { name: `Enable ${newest?.username}` }).waitFor();
    await page.getByRole('link', { name: 'First page' }).click();
    await page.getByRole('button', { name: `Disable ${username}` }).waitFor();
    await page.screenshot({ path: `${process.env.SCREENSHOT_DIR ?? '/tmp'}/console-players.png`, fullPage: true });
    await context.close();
  });

  test('a guest account is refused with a clear message; bad input is shown on the form', async () => {
    const prisma = rig.platform.platform.database.prisma;
    const email = `guest-${Date.now()}@example.test`;
    await prisma.account.create({
      data: { email, passwordHash: await hashPassword('guest password 1'), displayName: 'Guest', kind: 'guest' },
    });
    const context = await rig.browser.newContext();
    const page = await context.newPage();
    await page.goto(`${rig.platform.console}/signin`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('guest password 1');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    assert.match(
      (await page.getByRole('alert').textContent()) ?? '',
      /Guest accounts cannot use the developer console/,
    );
    assert.equal((await context.cookies(rig.platform.console)).filter((c) => c.name === 'console_session').length, 0);

    await register(page, `form-${Date.now()}@example.test`);
    await page.goto(`${rig.platform.console}/apps/new`);
    await page.getByLabel('Name').fill('Too Many');
    await page
      .getByLabel('Redirect URIs')
      .fill(Array.from({ length: 6 }, (_, i) => `https://a.example.test/${i}`).join('\n'));
    await page.getByLabel('city.public.read').check();
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByRole('alert').waitFor();
    assert.match((await page.getByRole('alert').textContent()) ?? '', /At most 5 redirect URIs/);
    assert.equal(await page.getByLabel('Name').inputValue(), 'Too Many', 'the form keeps what was typed');

    // Signed in, but without the session's form token: refused, nothing made.
    const forged = await page.request.post(`${rig.platform.console}/apps`, {
      form: { name: 'Forged', scopes: 'city.public.read' },
      maxRedirects: 0,
    });
    assert.equal(forged.status(), 403);
    assert.equal(await prisma.app.count({ where: { name: 'Forged' } }), 0);
    await context.close();
  });

  test('forms need the CSRF token, and pages forbid framing', async () => {
    const forged = await fetch(`${rig.platform.console}/apps`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: 'console_session=dps_x' },
      body: 'name=Forged&scopes=city.public.read',
      redirect: 'manual',
    });
    assert.equal(forged.status, 401);
    const signIn = await fetch(`${rig.platform.console}/signin`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=a%40example.test&password=whatever',
    });
    assert.equal(signIn.status, 403, 'a sign-in without the form token is refused');
    for (const path of ['/signin', '/register', '/apps', '/apps/svc_aaaaaaaaaaaaaaaaaaaaaaaaaa/edit']) {
      const response = await fetch(`${rig.platform.console}${path}`, { redirect: 'manual' });
      assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
      assert.equal(response.headers.get('x-frame-options'), 'DENY');
    }
  });
});
