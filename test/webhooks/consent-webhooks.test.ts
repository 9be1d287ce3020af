// Consent webhooks end to end: a player allows an app made in the console and the app's endpoint
// receives a signed consent.granted; the player removes access under Connected apps and it receives
// consent.revoked with the reason. An endpoint that keeps failing ends in the console's failed list,
// and a replay from the console delivers the event once the endpoint is back, with an audit record.
// Signatures are checked with the standardwebhooks package.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { allowOverHttp, PlayerAgent } from '@devplat/test/connected-apps';
import { consoleCall, type Developer, registerDeveloper } from '@devplat/test/console-api';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import {
  answer,
  eventually,
  startWebhookReceiver,
  verifyWebhook,
  type WebhookReceiver,
} from '@devplat/test/webhook-receiver';

let platform: TestPlatform;
let receiver: WebhookReceiver;
let developer: Developer;

before(async () => {
  platform = await startTestPlatform({
    WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_BACKOFF_BASE_MS: '50',
    WEBHOOK_MAX_ATTEMPTS: '3',
    WEBHOOK_TIMEOUT_MS: '2000',
  });
  receiver = await startWebhookReceiver();
  developer = await registerDeveloper(platform.console);
});
after(async () => {
  await receiver?.close();
  await platform?.close();
});

const api = (method: string, path: string, body?: unknown) =>
  consoleCall(platform.console, method, path, { token: developer.token, body });

async function consoleApp(webhookUrl: string, redirectUri = 'http://127.0.0.1:9/callback') {
  const created = await api('POST', '/apps', {
    name: 'Hooked App',
    redirect_uris: [redirectUri],
    scopes: ['city.public.read', 'profile.basic.read'],
    webhook_url: webhookUrl,
  });
  assert.equal(created.status, 201, created.text);
  const app = created.json.app;
  return {
    clientId: app.client_id as string,
    clientSecret: created.json.client_secret as string,
    signingSecret: app.webhook_signing_secret as string,
    app: { redirectUris: app.redirect_uris as string[] },
  };
}

async function sandboxPlayer() {
  const username = `hooked-${Date.now()}`;
  const created = await api('POST', '/sandbox-players', {
    username,
    password: 'player password',
    display_name: 'Hook',
  });
  assert.equal(created.status, 201);
  return { username, password: 'player password' };
}

type Event = { id: string; type: string; timestamp: string; data: Record<string, unknown> };

test('Allow sends a signed consent.granted; Remove access sends consent.revoked with player_withdrawal', async () => {
  receiver.behave(answer(204));
  const app = await consoleApp(receiver.url);
  const player = await sandboxPlayer();
  const tokens = await allowOverHttp(platform.base, app, player);

  const [granted] = await receiver.waitForRequests(1);
  const event = verifyWebhook(app.signingSecret, granted as never) as Event;
  assert.equal(event.type, 'consent.granted');
  assert.equal(granted?.headers['webhook-id'], event.id);
  assert.equal(granted?.headers['content-type'], 'application/json');
  assert.equal(event.data.app, app.clientId);
  assert.match(event.data.sub as string, /^ps_[A-Za-z0-9_-]{32}$/);
  assert.deepEqual(event.data.scopes, ['city.public.read', 'profile.basic.read']);
  assert.equal(event.data.consent_id, tokens.consentId);
  assert.ok(event.data.receipt_version);
  assert.ok(!granted?.body.includes(player.username), 'no player data beyond the pairwise subject');

  const agent = new PlayerAgent(platform.playerClient);
  await agent.signIn(player);
  const { csrf } = await agent.connectedApps();
  assert.equal((await agent.remove({ csrf, client_id: app.clientId })).status, 303);
  const [, revoked] = await receiver.waitForRequests(2);
  const revocation = verifyWebhook(app.signingSecret, revoked as never) as Event;
  assert.equal(revocation.type, 'consent.revoked');
  assert.equal(revocation.data.reason, 'player_withdrawal');
  assert.equal(revocation.data.sub, event.data.sub, 'the same pairwise subject');
  assert.notEqual(revocation.id, event.id);

  // A signature made with another app's secret does not verify.
  const other = await consoleApp(receiver.url);
  assert.throws(() => verifyWebhook(other.signingSecret, revoked as never));
});

test('an endpoint that keeps failing ends in the failed list; an audited replay delivers once it is back', async () => {
  receiver.behave(answer(503));
  const app = await consoleApp(receiver.url);
  const sent = await api('POST', `/apps/${app.clientId}/webhooks/test`);
  assert.equal(sent.status, 202);
  const failed = await eventually(async () => {
    const list = await api('GET', `/apps/${app.clientId}/deliveries?status=failed`);
    return list.json.data.find((delivery: { delivery_id: string }) => delivery.delivery_id === sent.json.delivery_id);
  });
  assert.equal(failed.attempts, 3);
  assert.equal(failed.last_status_code, 503);
  assert.equal(failed.next_attempt_at, null);
  assert.equal(failed.test, true);

  const before = receiver.received.length;
  receiver.behave(answer(200));
  const replayed = await api('POST', `/deliveries/${failed.delivery_id}/replay`);
  assert.equal(replayed.status, 202, replayed.text);
  const delivered = await eventually(async () => {
    const list = await api('GET', `/apps/${app.clientId}/deliveries?status=succeeded`);
    return list.json.data.find(
      (delivery: { delivery_id: string }) => delivery.delivery_id === replayed.json.delivery_id,
    );
  });
  assert.equal(delivered.replay_of, failed.delivery_id);
  const arrived = receiver.received.slice(before).at(-1);
  const event = verifyWebhook(app.signingSecret, arrived as never) as Event;
  assert.equal(event.type, 'consent.granted');
  assert.equal(event.data.test, true);
  assert.equal(event.id, failed.event_id, 'a replay is the same event, so receivers can deduplicate');

  const audit = await platform.platform.database.prisma.auditRecord.findFirstOrThrow({
    where: { action: 'webhook.replay', targetId: failed.delivery_id },
  });
  assert.equal(audit.actorId, developer.id);
  assert.equal((audit.details as { new_delivery_id: string }).new_delivery_id, replayed.json.delivery_id);

  const twice = await api('POST', `/deliveries/${failed.delivery_id}/replay`);
  assert.equal(twice.status, 409, 'a failed delivery is replayed once');
  assert.match(twice.json.detail, /replayed already/);

  const again = await api('POST', `/deliveries/${replayed.json.delivery_id}/replay`);
  assert.equal(again.status, 409, 'only a failed delivery can be replayed');
  assert.equal(again.json.code, 'DELIVERY_NOT_FAILED');
});

test("in loopback mode the platform's own ports are refused as webhook targets, on create and on update", async () => {
  const own = [platform.origin, platform.playerClient, platform.console, platform.internal].map(
    (origin) => new URL(origin).port,
  );
  for (const port of own) {
    for (const host of ['127.0.0.1', 'localhost', '[::1]']) {
      const created = await api('POST', '/apps', {
        name: 'Hooked App',
        scopes: ['city.public.read'],
        webhook_url: `http://${host}:${port}/hooks`,
      });
      assert.equal(created.status, 400, created.text);
      assert.equal(created.json.detail, `webhook_url must not point at the platform's own port ${port}.`);
    }
  }
  const app = await consoleApp(receiver.url);
  const updated = await api('PATCH', `/apps/${app.clientId}`, { webhook_url: `http://127.0.0.1:${own[0]}/hooks` });
  assert.equal(updated.status, 400, updated.text);
  assert.equal((await api('GET', `/apps/${app.clientId}`)).json.webhook_url, receiver.url);
});
