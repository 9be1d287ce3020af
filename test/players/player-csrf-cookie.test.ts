// The sign-in form's double-submit cookie over https: on path / with the __Host- prefix, like the
// session cookie, so no sibling subdomain or plain-http page can plant one. The player client
// sits behind a TLS-terminating proxy here (PLAYER_CLIENT_URL https, X-Forwarded-Proto).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createDeveloper } from '@devplat/test/apps';
import { formField } from '@devplat/test/connected-apps';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayer, Jar } from '@devplat/test/players';
import { freePort } from '@devplat/test/process';

let platform: TestPlatform;
let port: number;
before(async () => {
  port = await freePort();
  platform = await startTestPlatform({ PLAYER_CLIENT_URL: `https://127.0.0.2:${port}` });
});
after(() => platform.close());

const viaProxy = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
  fetch(`http://127.0.0.2:${port}${path}`, {
    ...init,
    redirect: 'manual',
    headers: { 'x-forwarded-proto': 'https', ...init.headers },
  });

/** A Set-Cookie line's name=value and its attributes, lower-cased and sorted. */
function parseSetCookie(line: string) {
  const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
  return { pair, attributes: attributes.map((attribute) => attribute.toLowerCase()).sort() };
}

describe('the sign-in CSRF cookie over https', () => {
  test('is __Host-player_csrf on path /, Secure, HttpOnly, SameSite=Strict', async () => {
    const page = await viaProxy('/signin');
    assert.equal(page.status, 200);
    const csrf = formField(await page.text(), 'csrf');
    const [line, ...others] = page.headers.getSetCookie();
    assert.equal(others.length, 0);
    assert.deepEqual(parseSetCookie(line ?? ''), {
      pair: `__Host-player_csrf=${csrf}`,
      attributes: ['httponly', 'path=/', 'samesite=strict', 'secure'],
    });
  });

  test('signing in with it works, and clears it', async () => {
    const prisma = platform.platform.database.prisma;
    const player = await createPlayer(prisma, (await createDeveloper(prisma)).id);
    const jar = new Jar();
    const page = await viaProxy('/signin');
    jar.take(page);
    const signedIn = await viaProxy('/signin', {
      method: 'POST',
      headers: { cookie: jar.header(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        csrf: formField(await page.text(), 'csrf'),
        return_to: '/account/connected-apps',
        username: player.username,
        password: player.password,
      }).toString(),
    });
    assert.equal(signedIn.status, 302);
    const cookies = signedIn.headers.getSetCookie().map(parseSetCookie);
    const cleared = cookies.find(({ pair }) => pair.startsWith('__Host-player_csrf='));
    assert.equal(cleared?.pair, '__Host-player_csrf=');
    assert.ok(cleared?.attributes.includes('path=/'));
    assert.ok(cookies.some(({ pair }) => pair.startsWith('__Host-player_session=')));
  });
});
