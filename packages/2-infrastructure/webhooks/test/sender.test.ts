import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, beforeEach, describe, test } from 'node:test';
import {
  answer,
  hold,
  startWebhookReceiver,
  verifyWebhook,
  type WebhookReceiver,
} from '@devplat/test/webhook-receiver';
import { sendWebhook, webhookBody } from '../src/index.ts';

const secret = `whsec_${randomBytes(24).toString('base64')}`;
const local = { allowLoopbackHttp: true, timeoutMs: 1000 };

function message(url: string) {
  const eventId = randomUUID();
  const body = webhookBody({
    id: eventId,
    type: 'consent.granted',
    createdAt: new Date('2026-11-22T10:00:00.000Z'),
    payload: { app: 'svc_abcdefghijklmnopqrstuvwxyz', sub: `ps_${'a'.repeat(32)}`, scopes: ['profile.basic.read'] },
  });
  return { url, eventId, body, signingSecret: secret };
}

let receiver: WebhookReceiver;
let other: WebhookReceiver;
before(async () => {
  receiver = await startWebhookReceiver();
  other = await startWebhookReceiver();
});
after(async () => {
  await receiver.close();
  await other.close();
});
beforeEach(() => {
  receiver.received.length = 0;
  other.received.length = 0;
  receiver.behave(answer(204));
  other.behave(answer(204));
});

describe('sending one attempt', () => {
  test('POSTs the body with Standard Webhooks headers a standard verifier accepts', async () => {
    const sent = message(receiver.url);
    assert.deepEqual(await sendWebhook(sent, local), { result: 'delivered', statusCode: 204 });
    const [request] = receiver.received;
    assert.ok(request);
    assert.equal(request.method, 'POST');
    assert.equal(request.path, '/hooks');
    assert.equal(request.headers['content-type'], 'application/json');
    assert.equal(request.headers['user-agent'], 'DeveloperPlatform-Webhooks/1.0');
    assert.equal(request.headers['webhook-id'], sent.eventId);
    assert.match(request.headers['webhook-signature'] ?? '', /^v1,[A-Za-z0-9+/]+=*$/);
    assert.ok(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000) < 5);
    assert.equal(request.body, sent.body);
    assert.deepEqual(verifyWebhook(secret, request), {
      id: sent.eventId,
      type: 'consent.granted',
      timestamp: '2026-11-22T10:00:00.000Z',
      data: { app: 'svc_abcdefghijklmnopqrstuvwxyz', sub: `ps_${'a'.repeat(32)}`, scopes: ['profile.basic.read'] },
    });
    // Another app's secret does not verify it.
    assert.throws(() => verifyWebhook(`whsec_${randomBytes(24).toString('base64')}`, request));
  });

  test('any 2xx is a delivery; anything else is a failure with the status', async () => {
    receiver.behave(answer(200, 'ok'));
    assert.deepEqual(await sendWebhook(message(receiver.url), local), { result: 'delivered', statusCode: 200 });
    receiver.behave(answer(500, `the secret is ${secret}`));
    const failed = await sendWebhook(message(receiver.url), local);
    assert.deepEqual(failed, { result: 'failed', statusCode: 500, error: 'HTTP 500' });
    receiver.behave(answer(410));
    assert.deepEqual(await sendWebhook(message(receiver.url), local), {
      result: 'failed',
      statusCode: 410,
      error: 'HTTP 410',
    });
  });

  test('does not follow redirects: a 302 to a working endpoint is a failed attempt', async () => {
    receiver.behave((response) => response.writeHead(302, { location: other.url }).end());
    assert.deepEqual(await sendWebhook(message(receiver.url), local), {
      result: 'failed',
      statusCode: 302,
      error: 'redirect not followed (HTTP 302)',
    });
    assert.equal(receiver.received.length, 1);
    assert.equal(other.received.length, 0);
  });

  test('a receiver that does not answer in time fails the attempt at the time limit', async () => {
    receiver.behave(hold);
    const started = Date.now();
    const outcome = await sendWebhook(message(receiver.url), { allowLoopbackHttp: true, timeoutMs: 300 });
    const elapsed = Date.now() - started;
    assert.deepEqual(outcome, { result: 'failed', statusCode: null, error: 'timed out after 300 ms' });
    assert.ok(elapsed >= 290 && elapsed < 2000, `took ${elapsed} ms`);
  });

  test('the time limit covers the whole answer, not just its headers', async () => {
    receiver.behave((response) => {
      response.writeHead(200);
      response.write('partial');
    });
    assert.deepEqual(await sendWebhook(message(receiver.url), { allowLoopbackHttp: true, timeoutMs: 300 }), {
      result: 'failed',
      statusCode: 200,
      error: 'timed out after 300 ms',
    });
  });

  test('an endless answer is read no further than 64 KiB', async () => {
    let written = 0;
    receiver.behave((response) => {
      response.writeHead(200);
      const pump = () => {
        while (!response.destroyed && written < 64 * 1024 * 1024 && response.write(Buffer.alloc(16 * 1024))) {
          written += 16 * 1024;
        }
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
    const outcome = await sendWebhook(message(receiver.url), { allowLoopbackHttp: true, timeoutMs: 5000 });
    assert.deepEqual(outcome, { result: 'delivered', statusCode: 200 });
    assert.ok(written < 16 * 1024 * 1024, `the receiver wrote ${written} bytes before the sender hung up`);
  });

  test('transport failures are short and say what happened', async () => {
    const closed = await startWebhookReceiver();
    const url = closed.url;
    await closed.close();
    assert.deepEqual(await sendWebhook(message(url), local), {
      result: 'failed',
      statusCode: null,
      error: 'connection refused',
    });
    receiver.behave((response) => response.socket?.destroy());
    const reset = await sendWebhook(message(receiver.url), local);
    assert.equal(reset.result, 'failed');
    assert.match(reset.result === 'failed' ? reset.error : '', /^connection (reset|closed)/);
  });

  test('a secret that is not a Standard Webhooks secret sends nothing', async () => {
    const outcome = await sendWebhook({ ...message(receiver.url), signingSecret: '' }, local);
    assert.deepEqual(outcome, {
      result: 'failed',
      statusCode: null,
      error: 'the app has no valid webhook signing secret',
    });
    assert.equal(receiver.received.length, 0);
  });

  test('an abort (worker shutdown) abandons the attempt', async () => {
    receiver.behave(hold);
    const controller = new AbortController();
    const sending = sendWebhook(message(receiver.url), local, controller.signal);
    await receiver.waitForRequests(1);
    controller.abort();
    assert.deepEqual(await sending, { result: 'abandoned' });
  });
});

describe('addresses a webhook may not reach', () => {
  const strict = { allowLoopbackHttp: false, timeoutMs: 1000 };

  test('the URL is checked again at send time', async () => {
    assert.deepEqual(await sendWebhook(message(receiver.url), strict), {
      result: 'failed',
      statusCode: null,
      error: 'the URL must use https',
    });
    assert.deepEqual(await sendWebhook(message('https://10.0.0.1/hooks'), strict), {
      result: 'failed',
      statusCode: null,
      error: 'the URL must not point at a private address',
    });
    assert.deepEqual(await sendWebhook(message('https://[::ffff:169.254.169.254]/'), strict), {
      result: 'failed',
      statusCode: null,
      error: 'the URL must not point at a link-local address',
    });
    assert.equal(receiver.received.length, 0);
  });

  test('a host name that resolves to a refused address is refused when connecting (DNS rebinding)', async () => {
    // The name passes the URL rules; only its resolved addresses, checked at connection time, tell.
    const resolvingTo =
      (...addresses: string[]) =>
      async () =>
        addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const url = `https://hooks.example.test:${receiver.port}/hooks`;
    for (const [addresses, kind] of [
      [['127.0.0.1'], 'a loopback address'],
      [['10.0.0.8'], 'a private address'],
      [['169.254.169.254'], 'a link-local address'],
      [['93.184.215.14', '::ffff:192.168.1.1'], 'a private address'],
    ] as const) {
      assert.deepEqual(await sendWebhook(message(url), { ...strict, resolveHost: resolvingTo(...addresses) }), {
        result: 'failed',
        statusCode: null,
        error: `refused: hooks.example.test resolves to ${kind}`,
      });
    }
    assert.equal(receiver.received.length, 0);
    // With the sandbox setting a name resolving to loopback is let through (plain http to the receiver).
    const local = { allowLoopbackHttp: true, timeoutMs: 1000, resolveHost: resolvingTo('127.0.0.1') };
    assert.deepEqual(await sendWebhook(message(`http://app.example.test:${receiver.port}/hooks`), local), {
      result: 'failed',
      statusCode: null,
      error: 'the URL may use plain http only on a loopback host (127.0.0.1, [::1] or localhost)',
    });
    assert.deepEqual(await sendWebhook(message(`http://localhost:${receiver.port}/hooks`), local), {
      result: 'delivered',
      statusCode: 204,
    });
  });
});
