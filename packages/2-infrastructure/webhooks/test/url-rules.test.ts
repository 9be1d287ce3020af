import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { startWebhookReceiver } from '@devplat/test/webhook-receiver';
import { addressKind, isLocalWebhookUrl, sendWebhook, webhookBody, webhookUrlProblem } from '../src/index.ts';

const strict = { allowLoopbackHttp: false };
const local = { allowLoopbackHttp: true };

describe('webhook URL rules', () => {
  test('accepts public https endpoints', () => {
    for (const url of [
      'https://example.com/hooks',
      'https://hooks.example.com:8443/a/b?c=d',
      'https://8.8.8.8/hooks',
      'https://[2606:4700::1111]/hooks',
      'https://[::ffff:808:808]/hooks', // ::ffff:8.8.8.8, as URL writes it
    ]) {
      assert.equal(webhookUrlProblem(url, strict), null, url);
    }
  });

  test('refuses plain http, other schemes and junk', () => {
    assert.equal(webhookUrlProblem('http://example.com/hooks', strict), 'must use https');
    assert.match(webhookUrlProblem('http://example.com/hooks', local) ?? '', /plain http only on a loopback host/);
    assert.match(webhookUrlProblem('http://10.0.0.1/hooks', local) ?? '', /plain http only on a loopback host/);
    assert.equal(webhookUrlProblem('ftp://example.com/hooks', strict), 'must use https');
    assert.equal(webhookUrlProblem('javascript:alert(1)', strict), 'must use https');
    assert.equal(webhookUrlProblem('/hooks', strict), 'is not an absolute URL');
    assert.equal(webhookUrlProblem('not a url', strict), 'is not an absolute URL');
    assert.match(webhookUrlProblem(`https://example.com/${'a'.repeat(2000)}`, strict) ?? '', /at most 2000/);
  });

  test('refuses credentials and fragments', () => {
    assert.equal(webhookUrlProblem('https://user:pass@example.com/hooks', strict), 'must not carry credentials');
    assert.equal(webhookUrlProblem('https://user@example.com/hooks', strict), 'must not carry credentials');
    assert.equal(webhookUrlProblem('https://example.com/hooks#part', strict), 'must not carry a fragment');
    assert.equal(webhookUrlProblem('https://example.com/hooks#', strict), 'must not carry a fragment');
  });

  test('refuses IP literals outside public unicast, IPv4 and IPv6', () => {
    const refused: [string, RegExp][] = [
      ['https://10.1.2.3/hooks', /private/],
      ['https://172.16.0.1/hooks', /private/],
      ['https://192.168.1.10/hooks', /private/],
      ['https://169.254.169.254/latest/meta-data', /link-local/],
      ['https://100.64.0.1/hooks', /CGNAT/],
      ['https://127.0.0.1/hooks', /loopback/],
      ['https://0x7f.1/hooks', /loopback/], // WHATWG URL turns this into 127.0.0.1
      ['https://0.0.0.0/hooks', /unspecified/],
      ['https://224.0.0.251/hooks', /multicast/],
      ['https://255.255.255.255/hooks', /reserved/],
      ['https://192.0.2.1/hooks', /reserved/],
      ['https://[::1]/hooks', /loopback/],
      ['https://[::]/hooks', /unspecified/],
      ['https://[fd12:3456::1]/hooks', /private/],
      ['https://[fe80::1]/hooks', /link-local/],
      ['https://[ff02::1]/hooks', /multicast/],
      ['https://[2001:db8::1]/hooks', /reserved/],
      ['https://[::ffff:10.0.0.1]/hooks', /private/],
      ['https://[::ffff:127.0.0.1]/hooks', /loopback/],
      ['https://[::ffff:169.254.169.254]/hooks', /link-local/],
      ['https://[64:ff9b::a9fe:a9fe]/hooks', /link-local/], // NAT64 to 169.254.169.254
      ['https://[2002:a00:1::1]/hooks', /reserved/], // 6to4 to 10.0.0.1
    ];
    for (const [url, kind] of refused) {
      const problem = webhookUrlProblem(url, strict);
      assert.match(problem ?? '', /^must not point at an? /, url);
      assert.match(problem ?? '', kind, url);
    }
  });

  test('loopback only with the sandbox setting, and then over http too', () => {
    assert.equal(webhookUrlProblem('http://127.0.0.1:9000/hooks', strict), 'must use https');
    assert.equal(webhookUrlProblem('http://[::1]:9000/hooks', strict), 'must use https');
    assert.equal(webhookUrlProblem('http://localhost:9000/hooks', strict), 'must use https');
    assert.equal(webhookUrlProblem('https://localhost:9000/hooks', strict), 'must not point at a loopback host');
    assert.equal(webhookUrlProblem('https://app.localhost/hooks', strict), 'must not point at a loopback host');
    for (const url of [
      'http://127.0.0.1:9000/hooks',
      'http://127.9.9.9/hooks',
      'http://[::1]:9000/hooks',
      'http://localhost:9000/hooks',
      'https://127.0.0.1/hooks',
    ]) {
      assert.equal(webhookUrlProblem(url, local), null, url);
    }
    // The setting opens loopback, nothing else.
    assert.match(webhookUrlProblem('https://10.0.0.1/hooks', local) ?? '', /private/);
    assert.match(webhookUrlProblem('https://[::ffff:10.0.0.1]/hooks', local) ?? '', /private/);
  });
});

describe("the developer's own machine", () => {
  test('refused as local: plain http or a loopback host; in loopback mode, plain http elsewhere only', () => {
    const cases: [string, boolean, boolean][] = [
      // url, local with loopback off, local with loopback http on
      ['http://localhost:3000/hooks', true, false],
      ['http://127.0.0.1:9000/x', true, false],
      ['https://localhost/x', true, false],
      ['https://[::1]:8443/x', true, false],
      ['http://example.com/x', true, true],
      ['https://example.com/hooks', false, false],
      ['https://10.0.0.1/x', false, false],
      ['ftp://localhost/x', false, false],
      ['not a url', false, false],
    ];
    for (const [url, strictly, inLoopbackMode] of cases) {
      assert.equal(isLocalWebhookUrl(url, strict), strictly, url);
      assert.equal(isLocalWebhookUrl(url, local), inLoopbackMode, `${url} in loopback mode`);
    }
  });
});

describe('the canonical form', () => {
  test('a URL is accepted only as new URL() writes it', () => {
    const refused: [string, string][] = [
      [' https://hooks.example.com/consent', 'must not contain spaces'],
      ['https://hooks.example.com/consent ', 'must not contain spaces'],
      ['https://hooks.example.com/con sent', 'must not contain spaces'],
      ['https:\\\\hooks.example.com\\consent', 'must not contain backslashes'],
      ['https://hooks.example.com\\consent', 'must not contain backslashes'],
      ['https:///consent', 'must name a host'],
      ['https:hooks.example.com/consent', 'must name a host'],
      ['https://Hooks.Example.com/consent', 'must be written exactly as https://hooks.example.com/consent'],
      ['https://hooks.example.com:443/consent', 'must be written exactly as https://hooks.example.com/consent'],
      ['https://hooks.example.com', 'must be written exactly as https://hooks.example.com/'],
      ['http://localhost:9000/a/../hooks', 'must be written exactly as http://localhost:9000/hooks'],
      ['https://[::ffff:8.8.8.8]/hooks', 'must be written exactly as https://[::ffff:808:808]/hooks'],
    ];
    for (const [url, reason] of refused) assert.equal(webhookUrlProblem(url, local), reason, url);
    // A more serious refusal is named first.
    assert.match(webhookUrlProblem('https://0x7f.1/hooks', strict) ?? '', /loopback/);
  });
});

describe("the platform's own ports", () => {
  const ownPorts = [8080, 8081, 443];
  const sandbox = { allowLoopbackHttp: true, ownPorts };

  test('a loopback webhook on one of them is refused', () => {
    for (const url of [
      'http://127.0.0.1:8080/hooks',
      'http://127.3.2.1:8081/hooks',
      'http://localhost:8080/hooks',
      'http://[::1]:8081/hooks',
      'http://[::ffff:127.0.0.1]:8080/hooks',
      'https://127.0.0.1/hooks',
    ]) {
      assert.match(webhookUrlProblem(url, sandbox) ?? '', /^must not point at the platform's own port \d+$/, url);
    }
    // Other ports, and other hosts on those ports, stay open.
    assert.equal(webhookUrlProblem('http://127.0.0.1:9000/hooks', sandbox), null);
    assert.equal(webhookUrlProblem('http://127.0.0.1/hooks', sandbox), null);
    assert.equal(webhookUrlProblem('https://hooks.example.com:8080/hooks', sandbox), null);
  });

  test('the sender refuses them at delivery time, by URL and by resolved address', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const eventId = randomUUID();
      const body = webhookBody({ id: eventId, type: 'consent.granted', createdAt: new Date(), payload: {} });
      const message = (url: string) => ({ url, eventId, body, signingSecret: `whsec_${'A'.repeat(32)}` });
      const settings = { allowLoopbackHttp: true, timeoutMs: 1000, ownPorts: [receiver.port] };
      assert.deepEqual(await sendWebhook(message(receiver.url), settings), {
        result: 'failed',
        statusCode: null,
        error: `the URL must not point at the platform's own port ${receiver.port}`,
      });
      const resolveHost = async () => [{ address: '127.0.0.1', family: 4 }];
      const named = `https://hooks.example.test:${receiver.port}/hooks`;
      assert.deepEqual(await sendWebhook(message(named), { ...settings, resolveHost }), {
        result: 'failed',
        statusCode: null,
        error: 'refused: hooks.example.test resolves to a loopback address',
      });
      assert.equal(receiver.received.length, 0);
      // Not one of the platform's ports: delivered.
      assert.equal((await sendWebhook(message(receiver.url), { ...settings, ownPorts: [] })).result, 'delivered');
    } finally {
      await receiver.close();
    }
  });
});

describe('address kinds', () => {
  test('classifies resolved addresses as the lookup sees them', () => {
    assert.equal(addressKind('93.184.215.14'), 'public');
    assert.equal(addressKind('2606:4700:4700::1111'), 'public');
    assert.equal(addressKind('::ffff:a00:1'), 'private');
    assert.equal(addressKind('::ffff:10.0.0.1'), 'private');
    assert.equal(addressKind('fe80::1%eth0'), 'link-local');
    assert.equal(addressKind('::1'), 'loopback');
    assert.equal(addressKind('127.255.255.254'), 'loopback');
    assert.equal(addressKind('172.31.255.255'), 'private');
    assert.equal(addressKind('172.32.0.1'), 'public');
    assert.equal(addressKind('100.128.0.1'), 'public');
    assert.equal(addressKind('::a00:1'), 'reserved'); // IPv4-compatible, deprecated
    assert.equal(addressKind('example.com'), null);
  });
});
