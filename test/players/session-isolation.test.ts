// Contract rule 9: the session cookie never reaches the app. The player client and the console set
// their cookies on loopback hosts of their own (127.0.0.2, 127.0.0.3), which no redirect URI may
// use, so a browser that is signed in to both carries nothing to an app's loopback callback on
// 127.0.0.1, localhost or [::1], whatever its port. And the console's web session is not an API
// credential: its cookie value is never accepted as a bearer token, nor an API token as a cookie.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { launchChromium } from '@devplat/test/browser';
import { consoleCall, registerDeveloper } from '@devplat/test/console-api';
import { authorizationRequest } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { Jar } from '@devplat/test/players';
import type { Browser } from 'playwright-core';

/** The app's callback server on one loopback address; it keeps the headers of every request. */
async function recordingAppServer(host: string) {
  const seen: { url: string; headers: IncomingHttpHeaders }[] = [];
  const server = createServer((request, response) => {
    seen.push({ url: request.url ?? '', headers: request.headers });
    response.writeHead(200, { 'content-type': 'text/html' }).end('<h1>Connected</h1>');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { seen, port: (server.address() as AddressInfo).port, close: () => server.close() };
}

let platform: TestPlatform;
let browser: Browser;
let ipv4: Awaited<ReturnType<typeof recordingAppServer>>;
let ipv6: Awaited<ReturnType<typeof recordingAppServer>>;

before(async () => {
  platform = await startTestPlatform();
  browser = await launchChromium();
  ipv4 = await recordingAppServer('127.0.0.1');
  ipv6 = await recordingAppServer('::1');
});
after(async () => {
  ipv4?.close();
  ipv6?.close();
  await browser?.close();
  await platform?.close();
});

describe('no platform cookie reaches an app', () => {
  test('a browser signed in to the console and the player client sends nothing to loopback callbacks', async () => {
    const callbacks = [
      `http://127.0.0.1:${ipv4.port}/callback`,
      `http://localhost:${ipv4.port}/callback`,
      `http://[::1]:${ipv6.port}/callback`,
    ];
    const context = await browser.newContext();
    const page = await context.newPage();

    // The developer registers in the console and creates the app and a player there.
    await page.goto(`${platform.console}/register`);
    await page.getByLabel('Email').fill(`isolated-${Date.now()}@example.test`);
    await page.getByLabel('Display name').fill('Grace Hopper');
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('link', { name: 'Create app' }).click();
    await page.getByLabel('Name').fill('Loopback App');
    // The platform's own hosts are refused, with the reason.
    await page.getByLabel('Redirect URIs').fill(`https://127.0.0.2:${ipv4.port}/callback`);
    await page.getByLabel('profile.basic.read').check();
    await page.getByRole('button', { name: 'Create app' }).click();
    await page.getByText(/points at the platform's own sign-in host/).waitFor();
    await page.getByLabel('Redirect URIs').fill(callbacks.join('\n'));
    await page.getByLabel('profile.basic.read').check();
    await page.getByRole('button', { name: 'Create app' }).click();
    const clientId = (await page.getByTestId('client-id').textContent()) ?? '';
    await page.getByRole('link', { name: 'Sandbox players' }).click();
    const username = `loop-${Date.now()}`;
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill('player password');
    await page.getByRole('button', { name: 'Create player' }).click();
    await page.getByText(`Created the sandbox player ${username}.`).waitFor();

    // The same browser signs in as the player and allows the app, once per callback.
    for (const [index, callback] of callbacks.entries()) {
      const { url } = await authorizationRequest(platform.base, clientId, callback, 'profile.basic.read');
      await page.goto(url);
      if (index === 0) {
        await page.getByLabel('Username').fill(username);
        await page.getByLabel('Password').fill('player password');
        await page.getByRole('button', { name: 'Sign in' }).click();
      }
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL((current) => current.href.startsWith(callback));
      assert.ok(new URL(page.url()).searchParams.get('code'), `a code reached ${callback}`);
    }

    const cookieNames = (await context.cookies()).map((cookie) => `${cookie.domain} ${cookie.name}`);
    assert.ok(cookieNames.includes('127.0.0.2 player_session'), 'the browser holds a player session');
    assert.ok(cookieNames.includes('127.0.0.3 console_session'), 'the browser holds a console session');
    // The callbacks, and whatever else Chromium asked the app's servers for (its favicon).
    const requests = [...ipv4.seen, ...ipv6.seen];
    assert.equal(requests.filter((request) => request.url.startsWith('/callback?')).length, 3);
    for (const request of requests) {
      assert.equal(request.headers.cookie, undefined, `no cookie on ${request.headers.host}${request.url}`);
    }
    await context.close();
  });

  test('a redirect URI registered on a platform host is refused at the consent screen, never redirected to', async () => {
    const developer = await registerDeveloper(platform.console);
    const created = await consoleCall(platform.console, 'POST', '/apps', {
      token: developer.token,
      body: {
        name: 'Sneaky',
        redirect_uris: [`http://127.0.0.1:${ipv4.port}/callback`],
        scopes: ['profile.basic.read'],
      },
    });
    assert.equal(created.status, 201);
    for (const uri of ['https://127.0.0.2/cb', 'https://127.0.0.3:8443/cb', 'https://127.0.0.2./cb']) {
      const refused = await consoleCall(platform.console, 'POST', '/apps', {
        token: developer.token,
        body: { name: 'Sneaky', redirect_uris: [uri], scopes: ['profile.basic.read'] },
      });
      assert.equal(refused.status, 400, uri);
      assert.match(refused.json.detail, /points at the platform's own sign-in host/);
    }
    // One stored before the platform moved its hosts (written straight to the registry).
    const stale = 'https://127.0.0.2/old-callback';
    await platform.platform.database.prisma.app.update({
      where: { clientId: created.json.app.client_id },
      data: { redirectUris: [stale] },
    });
    const { url } = await authorizationRequest(platform.base, created.json.app.client_id, stale, 'profile.basic.read');
    const response = await fetch(url, { redirect: 'manual' });
    assert.equal(response.status, 400);
    assert.match(await response.text(), /an address on the platform.{1,6}s own sites, which no app may use/);
  });
});

describe("the console's web session and API tokens are different credentials", () => {
  async function webSessionCookie(email: string, password: string) {
    const jar = new Jar();
    const form = await fetch(`${platform.console}/signin`);
    jar.take(form);
    const csrf = /name="csrf" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
    const signedIn = await fetch(`${platform.console}/signin`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ email, password, csrf }),
    });
    assert.equal(signedIn.status, 303);
    jar.take(signedIn);
    const value = /console_session=([^;]+)/.exec(jar.header())?.[1];
    assert.ok(value, 'the web UI set its session cookie');
    return value;
  }

  test('a cookie value is never a bearer token, and a bearer token is never a cookie', async () => {
    const developer = await registerDeveloper(platform.console);
    const cookieValue = await webSessionCookie(developer.email, developer.password);

    const asCookie = await fetch(`${platform.console}/apps`, {
      redirect: 'manual',
      headers: { cookie: `console_session=${cookieValue}` },
    });
    assert.equal(asCookie.status, 200, 'the cookie opens the web UI');
    const asBearer = await consoleCall(platform.console, 'GET', '/account', { token: cookieValue });
    assert.equal(asBearer.status, 401);
    assert.equal(asBearer.json.code, 'NOT_SIGNED_IN');

    assert.equal((await consoleCall(platform.console, 'GET', '/account', { token: developer.token })).status, 200);
    const tokenAsCookie = await fetch(`${platform.console}/apps`, {
      redirect: 'manual',
      headers: { cookie: `console_session=${developer.token}` },
    });
    assert.equal(tokenAsCookie.status, 302);
    assert.equal(tokenAsCookie.headers.get('location'), '/signin');
  });
});
