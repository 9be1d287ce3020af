// The loopback callback page of devplat try: the one page template and layout, the page stack's
// security headers, and one answer per authorization.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pageHeaders } from '@devplat/http/html';
import { freePort } from '@devplat/test/process';
import { listenForCallback } from '../src/callback-server.ts';

test('the first GET on the path is delivered and answered; later ones, other paths and methods are not', async () => {
  const redirectUri = new URL(`http://127.0.0.1:${await freePort()}/callback`);
  const callback = await listenForCallback(redirectUri);
  try {
    const first = await fetch(`${redirectUri.href}?code=sva_x&state=s`);
    assert.equal(first.status, 200);
    for (const [name, value] of Object.entries(pageHeaders(true))) assert.equal(first.headers.get(name), value, name);
    assert.equal(first.headers.get('content-type'), 'text/html; charset=utf-8');
    const page = await first.text();
    assert.match(page, /^<!doctype html><html lang="en">/);
    assert.match(page, /<title>You can close this tab<\/title>/);
    assert.match(page, /<main><h1>You can close this tab<\/h1><p>devplat received the answer/);
    assert.equal((await callback.received).searchParams.get('code'), 'sva_x');

    const again = await fetch(redirectUri);
    assert.equal(again.status, 409);
    assert.match(await again.text(), /Already answered/);
    const elsewhere = await fetch(new URL('/other', redirectUri));
    assert.equal(elsewhere.status, 404);
    assert.equal(elsewhere.headers.get('x-frame-options'), 'DENY');
    assert.match(await elsewhere.text(), /Not found/);
    const posted = await fetch(redirectUri, { method: 'POST' });
    assert.equal(posted.status, 405);
    assert.match(await posted.text(), /Method not allowed/);
  } finally {
    await callback.close();
  }
});
