import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type KeyValueStore, memoryStore } from '@devplat/kv';
import {
  cookie,
  cookieSessions,
  createLogger,
  doubleSubmitCsrf,
  html,
  listen,
  pageApp,
  type RunningServer,
  readForm,
  sendPage,
  sessionFormValid,
  sessionStore,
} from '../src/index.ts';

/** A memory store that remembers every key and value written to it and every key read. */
function recordingStore() {
  const store = memoryStore();
  const written: string[] = [];
  const read: string[] = [];
  const recording: KeyValueStore = {
    ...store,
    put: (key, value, ttl) => {
      written.push(key, value);
      return store.put(key, value, ttl);
    },
    getMany: (keys) => {
      read.push(...keys);
      return store.getMany(keys);
    },
  };
  return { store: recording, written, read };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('the session store', () => {
  test('start, find and end; the store holds only the SHA-256 of the token', async () => {
    const { store, written } = recordingStore();
    const sessions = sessionStore<{ accountId: string }>(store, {
      keyPrefix: 'test-session',
      tokenPrefix: 'dps_',
      lifetimeSeconds: 3600,
    });
    const before = Date.now();
    const { token, session } = await sessions.start({ accountId: 'acc_1' });
    assert.match(token, /^dps_[A-Za-z0-9_-]{43}$/);
    assert.match(session.csrf, /^[A-Za-z0-9_-]{43}$/);
    assert.ok(session.expiresAt >= before + 3600_000 && session.expiresAt <= Date.now() + 3600_000);
    assert.deepEqual(await sessions.find(token), session);
    assert.equal(written[0], `test-session:{${sha256(token)}}`);
    assert.ok(!written.some((entry) => entry.includes(token.slice(4))), 'the token itself is never stored');

    const other = await sessions.start({ accountId: 'acc_1' });
    assert.notEqual(other.token, token);
    assert.notEqual(other.session.csrf, session.csrf, 'each session has its own CSRF token');

    await sessions.end(token);
    assert.equal(await sessions.find(token), null);
    assert.deepEqual(await sessions.find(other.token), other.session, 'ending one leaves the others');
  });

  test('a malformed token never reaches the store; an unknown one finds nothing', async () => {
    const { store, read } = recordingStore();
    const sessions = sessionStore(store, { keyPrefix: 's', tokenPrefix: 'dps_', lifetimeSeconds: 60 });
    for (const token of [undefined, '', 'dps_x', `dpx_${'a'.repeat(43)}`, `dps_${'a'.repeat(42)}!`, 'a'.repeat(43)]) {
      assert.equal(await sessions.find(token), null);
    }
    assert.deepEqual(read, []);
    assert.equal(await sessions.find(`dps_${'a'.repeat(43)}`), null);
    assert.equal(read.length, 1);
  });

  test('an expired session is not found, even while the store still holds it', async () => {
    const store = memoryStore();
    const sessions = sessionStore<{ playerId: string }>(store, { keyPrefix: 'p', lifetimeSeconds: 60 });
    const { token, session } = await sessions.start({ playerId: 'p1' });
    await store.put(`p:{${sha256(token)}}`, JSON.stringify({ ...session, expiresAt: Date.now() - 1 }), 60);
    assert.equal(await sessions.find(token), null);
  });

  test('a notice is kept beside the session, shown once, and ends with it', async () => {
    const store = memoryStore();
    const sessions = sessionStore<{ playerId: string }>(store, { keyPrefix: 'p', lifetimeSeconds: 60 });
    const { token, session } = await sessions.start({ playerId: 'p1' });
    assert.equal(await sessions.takeNotice(token), undefined);
    await sessions.notify(token, 'Removed access for <b>Chess</b>.');
    assert.deepEqual(await sessions.find(token), session, 'the session itself is unchanged');
    assert.equal(await sessions.takeNotice(token), 'Removed access for <b>Chess</b>.');
    assert.equal(await sessions.takeNotice(token), undefined, 'shown once');
    await sessions.notify(token, 'again');
    await sessions.end(token);
    assert.equal(await sessions.takeNotice(token), undefined);
  });
});

describe('sessions in cookies, and CSRF', () => {
  let server: RunningServer;
  before(async () => {
    const { app, route } = pageApp({
      logger: createLogger('silent', 'test'),
      errorPage: ({ message }) => html`<p>${message}</p>`,
      // Served both ways: over http, and over https through a proxy on loopback.
      forwarded: { secure: false, trustedProxies: ['127.0.0.1', '::1'] },
    });
    const store = memoryStore();
    const sessionsFor = (secure: boolean) =>
      cookieSessions(
        sessionStore<{ name: string }>(store, { keyPrefix: 's', lifetimeSeconds: 600 }),
        cookie({ name: 'site_session', sameSite: 'lax', secure }),
      );
    const csrfFor = (secure: boolean) =>
      doubleSubmitCsrf(cookie({ name: 'site_csrf', sameSite: 'strict', secure, path: '/signin' }));
    const secure = (ctx: { secure: boolean }) => ctx.secure;
    route('/signin', {
      GET: (ctx) => sendPage(ctx, 200, html`${csrfFor(secure(ctx)).issue(ctx)}`),
      POST: async (ctx) => {
        const form = await readForm(ctx);
        const csrf = csrfFor(secure(ctx));
        if (!csrf.valid(ctx, form.csrf)) return sendPage(ctx, 403, html`refused`);
        const { session } = await sessionsFor(secure(ctx)).start(ctx, { name: form.name ?? '' });
        csrf.clear(ctx);
        sendPage(ctx, 200, html`${session.csrf}`);
      },
    });
    route('/me', {
      GET: async (ctx) => {
        const current = await sessionsFor(secure(ctx)).current(ctx);
        ctx.body = current ? current.session : { signedOut: true };
      },
    });
    route('/signout', {
      POST: async (ctx) => {
        const form = await readForm(ctx);
        const sessions = sessionsFor(secure(ctx));
        if (!sessionFormValid((await sessions.current(ctx))?.session, form.csrf)) {
          return sendPage(ctx, 403, html`refused`);
        }
        await sessions.end(ctx);
        ctx.status = 204;
      },
    });
    server = await listen(app.callback(), '127.0.0.1', 0);
  });
  after(() => server.close());

  const send = (method: string, path: string, headers: Record<string, string>, form?: Record<string, string>) =>
    fetch(`${server.origin}${path}`, {
      method,
      headers: form ? { ...headers, 'content-type': 'application/x-www-form-urlencoded' } : headers,
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
  const cookiePair = (response: Response, name: string) =>
    response.headers
      .getSetCookie()
      .find((line) => line.startsWith(`${name}=`))
      ?.split(';')[0] ?? '';

  test('over http: the cookies, the double-submit check and the session token', async () => {
    const page = await send('GET', '/signin', {});
    const token = await page.text();
    const [csrfCookie] = page.headers.getSetCookie();
    assert.match(csrfCookie ?? '', new RegExp(`^site_csrf=${token}; path=/signin; samesite=strict; httponly$`));

    const withCookie = { cookie: cookiePair(page, 'site_csrf') };
    assert.equal((await send('POST', '/signin', {}, { csrf: token, name: 'Ada' })).status, 403, 'no cookie');
    assert.equal((await send('POST', '/signin', withCookie, { name: 'Ada' })).status, 403, 'no form token');
    assert.equal((await send('POST', '/signin', withCookie, { csrf: 'x'.repeat(43), name: 'Ada' })).status, 403);

    const signedIn = await send('POST', '/signin', withCookie, { csrf: token, name: 'Ada' });
    assert.equal(signedIn.status, 200);
    const sessionCsrf = await signedIn.text();
    const setCookies = signedIn.headers.getSetCookie();
    const sessionCookie = setCookies.find((line) => line.startsWith('site_session=')) ?? '';
    const expires = /^site_session=[A-Za-z0-9_-]{43}; path=\/; expires=([^;]+); samesite=lax; httponly$/.exec(
      sessionCookie,
    )?.[1];
    assert.ok(expires, sessionCookie);
    assert.ok(Math.abs(Date.parse(expires) - (Date.now() + 600_000)) < 5_000, 'it lasts as long as the session');
    assert.ok(
      setCookies.some((line) => line.startsWith('site_csrf=; path=/signin; expires=Thu, 01 Jan 1970')),
      'the form token is spent',
    );

    const session = { cookie: cookiePair(signedIn, 'site_session') };
    const me = (await (await send('GET', '/me', session)).json()) as { name: string; csrf: string };
    assert.equal(me.name, 'Ada');
    assert.equal(me.csrf, sessionCsrf);

    assert.equal((await send('POST', '/signout', session, { csrf: token })).status, 403, 'not the session token');
    assert.equal((await send('POST', '/signout', {}, { csrf: sessionCsrf })).status, 403, 'not without the session');
    const signedOut = await send('POST', '/signout', session, { csrf: sessionCsrf });
    assert.equal(signedOut.status, 204);
    assert.match(cookiePair(signedOut, 'site_session'), /^site_session=$/);
    assert.deepEqual(await (await send('GET', '/me', session)).json(), { signedOut: true }, 'the session has ended');
  });

  test('over https: Secure cookies, with the __Host- prefix on path /', async () => {
    const https = { 'x-forwarded-proto': 'https' };
    const page = await send('GET', '/signin', https);
    const token = await page.text();
    assert.match(
      page.headers.getSetCookie()[0] ?? '',
      /^site_csrf=[^;]+; path=\/signin; samesite=strict; secure; httponly$/,
    );
    const signedIn = await send(
      'POST',
      '/signin',
      { ...https, cookie: cookiePair(page, 'site_csrf') },
      { csrf: token, name: 'Ada' },
    );
    const sessionCookie = signedIn.headers.getSetCookie().find((line) => line.startsWith('__Host-site_session='));
    assert.match(sessionCookie ?? '', /; path=\/; expires=[^;]+; samesite=lax; secure; httponly$/);
    const me = await send('GET', '/me', { ...https, cookie: cookiePair(signedIn, '__Host-site_session') });
    assert.equal(((await me.json()) as { name: string }).name, 'Ada');
  });

  test('signing in again ends the previous session', async () => {
    const signIn = async (cookieHeader = '') => {
      const page = await send('GET', '/signin', {});
      const csrf = await page.text();
      const both = [cookiePair(page, 'site_csrf'), cookieHeader].filter(Boolean).join('; ');
      return cookiePair(await send('POST', '/signin', { cookie: both }, { csrf, name: 'Ada' }), 'site_session');
    };
    const first = await signIn();
    const second = await signIn(first);
    assert.notEqual(second, first);
    assert.deepEqual(await (await send('GET', '/me', { cookie: first })).json(), { signedOut: true });
    assert.equal(((await (await send('GET', '/me', { cookie: second })).json()) as { name: string }).name, 'Ada');
  });
});
