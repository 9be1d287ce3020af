// devplat listen as a developer runs it: a local receiver on 127.0.0.1 (no webhook URL on the app,
// WEBHOOK_ALLOW_LOOPBACK_HTTP off), a test event and a real consent forwarded through the console,
// each signed as a real delivery (the standardwebhooks package verifies it with the app's secret),
// each once, a line per event with the receiver's answer, and Ctrl-C ending it with exit 0.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { authorizationRequest } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp } from '@devplat/test/players';
import { freePort } from '@devplat/test/process';
import {
  answer,
  eventually,
  startWebhookReceiver,
  verifyWebhook,
  type WebhookReceiver,
} from '@devplat/test/webhook-receiver';
import { developerShell } from './cli.ts';

let platform: TestPlatform;
let shell: ReturnType<typeof developerShell>;
let receiver: WebhookReceiver;
let clientId: string;
let signingSecret: string;
let redirectUri: string;
const player = { username: 'lena', password: 'player-password' };

before(async () => {
  platform = await startTestPlatform({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'off' }, { webhookWorker: false });
  shell = developerShell(platform.console);
  receiver = await startWebhookReceiver(answer(204));
  redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const password = { DEVPLAT_PASSWORD: 'developer-password' };
  await shell.json(['register', '--email', 'lena@developer.test', '--display-name', 'Lena'], { env: password });
  await shell.json(['login', '--email', 'lena@developer.test'], { env: password });
  const created = await shell.json<{ app: { client_id: string; webhook_signing_secret: string } }>([
    'apps',
    'create',
    '--name',
    'Listening App',
    '--redirect-uri',
    redirectUri,
    '--scope',
    'profile.basic.read',
  ]);
  clientId = created.app.client_id;
  signingSecret = created.app.webhook_signing_secret;
  await shell.json(['players', 'create', '--username', player.username], {
    env: { DEVPLAT_PASSWORD: player.password },
  });
});
after(async () => {
  await receiver?.close();
  await platform?.close();
});

describe('devplat listen', () => {
  test('the local URL is refused as a webhook URL, and the refusal names devplat listen', async () => {
    const refused = await shell.run(['apps', 'set-webhook', clientId, '--url', receiver.url]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /must use https \(to receive events on your own machine, run: devplat listen/);
    const test = await shell.run(['webhooks', 'test', clientId]);
    assert.equal(test.code, 1, 'no webhook URL and no listen running');
    assert.match(test.stderr, /devplat listen <client_id> --forward-to/);
  });

  test('forwards a test event and a real consent, signed as real deliveries, each once; Ctrl-C stops it', async () => {
    const listen = shell.start(['listen', clientId, '--forward-to', receiver.url]);
    await listen.waitForStderr(
      /^Ready: forwarding the consent and test events of svc_\w+ to http:\/\/127\.0\.0\.1:\d+\/hooks/m,
    );

    const test = await shell.run(['webhooks', 'test', clientId]);
    assert.equal(test.code, 0, test.stderr);
    assert.match(test.stdout, /to devplat listen \(no webhook URL\)/);
    const [testEvent] = await receiver.waitForRequests(1);
    assert.ok(testEvent);
    const testBody = verifyWebhook(signingSecret, testEvent) as { type: string; data: { test?: boolean; app: string } };
    assert.equal(testBody.type, 'consent.granted');
    assert.equal(testBody.data.test, true);
    assert.equal(testBody.data.app, clientId);
    assert.equal(testEvent.headers['user-agent'], 'DeveloperPlatform-Webhooks/1.0');
    assert.equal(testEvent.headers['content-type'], 'application/json');

    // A player allows the app: the real consent.granted reaches the same local receiver.
    const { url } = await authorizationRequest(platform.base, clientId, redirectUri, 'profile.basic.read');
    await consentOverHttp(url, player);
    const [, consent] = await receiver.waitForRequests(2);
    assert.ok(consent);
    const consentBody = verifyWebhook(signingSecret, consent) as {
      id: string;
      type: string;
      data: { sub: string; test?: boolean };
    };
    assert.equal(consentBody.type, 'consent.granted');
    assert.equal(consentBody.data.test, undefined);
    assert.match(consentBody.data.sub, /^ps_/);
    assert.equal(consent.headers['webhook-id'], consentBody.id);
    await listen.waitForStdout(new RegExp(`${consentBody.id}  → 204`));

    // Across the console's stream ends and reconnections (15 s each), nothing is forwarded twice.
    await new Promise((resolve) => setTimeout(resolve, 16_000));
    assert.equal(receiver.received.length, 2);

    listen.child.kill('SIGINT');
    const result = await listen.done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /Stopped\.\n$/);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, 2, result.stdout);
    assert.match(lines[0] ?? '', /consent\.granted \(test\) {2}[0-9a-f-]{36} {2}→ 204 \(\d+ ms\)$/);
    assert.match(lines[1] ?? '', new RegExp(`consent\\.granted  ${consentBody.id}  → 204 \\(\\d+ ms\\)$`));
  });

  test('--json prints a line per event with what the local endpoint answered, a failure included', async () => {
    receiver.behave(answer(500));
    const listen = shell.start(['listen', clientId, '--forward-to', receiver.url, '--json']);
    await listen.waitForStderr(/^Ready/m);
    const before = receiver.received.length;
    assert.equal((await shell.run(['webhooks', 'test', clientId])).code, 0);
    await eventually(() => receiver.received.length > before);
    await listen.waitForStdout(/"status":500/);
    listen.child.kill('SIGINT');
    const result = await listen.done;
    assert.equal(result.code, 0, result.stderr);
    const [line] = result.stdout
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    assert.equal(line.type, 'consent.granted');
    assert.equal(line.test, true);
    assert.equal(line.status, 500);
    assert.equal(line.error, null);
    receiver.behave(answer(204));
  });

  test('an app that is not yours, and a --forward-to that is no URL, are refused at once', async () => {
    const unknown = await shell.run(['listen', 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaa', '--forward-to', receiver.url]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /\(NOT_FOUND\)/);
    const bad = await shell.run(['listen', clientId, '--forward-to', 'localhost:3000']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--forward-to must be an http or https URL/);
  });
});
