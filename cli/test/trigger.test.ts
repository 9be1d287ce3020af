// devplat trigger as a developer runs it: a real consent.granted and consent.revoked for one of
// their sandbox players, made by the consent operations Allow and Remove access run, reaching the
// app's webhook URL (signed, delivered by the platform's worker) and devplat listen (filtered by
// --events) as production sends them; the revoked consent's token refused on its next call; each
// trigger in the app's history; and the refusals that name what to do.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { authorizationRequest, redeemCode } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp } from '@devplat/test/players';
import { freePort } from '@devplat/test/process';
import { eventually, startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '@devplat/test/webhook-receiver';
import { developerShell } from './cli.ts';

interface Triggered {
  event: string;
  client_id: string;
  player: { id: string; username: string };
  sub: string;
  sent: { consent_id: string; event_id: string }[];
}
interface ConsentEvent {
  id: string;
  type: string;
  data: { sub: string; consent_id: string; scopes: string[]; reason?: string; test?: boolean };
}

let platform: TestPlatform;
let shell: ReturnType<typeof developerShell>;
let stranger: ReturnType<typeof developerShell>;
let webhook: WebhookReceiver;
let local: WebhookReceiver;
let app: { client_id: string; client_secret: string; webhook_signing_secret: string };
let redirectUri: string;
let listen: ReturnType<typeof shell.start> | undefined;
const player = { username: 'rosa', password: 'player-password' };

async function signedInShell(email: string) {
  const developer = developerShell(platform.console);
  const password = { DEVPLAT_PASSWORD: 'developer-password' };
  await developer.json(['register', '--email', email, '--display-name', 'Rosa'], { env: password });
  await developer.json(['login', '--email', email], { env: password });
  return developer;
}

/** The webhook deliveries received so far, verified with the app's signing secret. */
const delivered = (receiver: WebhookReceiver) =>
  receiver.received.map((request) => verifyWebhook(app.webhook_signing_secret, request) as ConsentEvent);

before(async () => {
  platform = await startTestPlatform({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on' });
  webhook = await startWebhookReceiver();
  local = await startWebhookReceiver();
  shell = await signedInShell('rosa@developer.test');
  stranger = await signedInShell('someone-else@developer.test');
  redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const created = await shell.json<{ app: typeof app; client_secret: string }>([
    'apps',
    'create',
    '--name',
    'Triggered App',
    '--redirect-uri',
    redirectUri,
    '--scope',
    'profile.basic.read',
    '--scope',
    'city.public.read',
  ]);
  app = { ...created.app, client_secret: created.client_secret };
  await shell.json(['apps', 'set-webhook', app.client_id, '--url', webhook.url]);
  await shell.json(['players', 'create', '--username', player.username], {
    env: { DEVPLAT_PASSWORD: player.password },
  });
});
after(async () => {
  listen?.child.kill('SIGINT');
  await webhook?.close();
  await local?.close();
  await platform?.close();
});

describe('devplat trigger', () => {
  test('consent.granted and consent.revoked reach the webhook and a filtered listen, as production sends them', async () => {
    // A real Allow first: the player holds a user token under a consent.
    const { url, state, verifier } = await authorizationRequest(
      platform.base,
      app.client_id,
      redirectUri,
      'profile.basic.read',
    );
    const callback = await consentOverHttp(url, player);
    const tokens = await redeemCode(
      platform.base,
      { clientId: app.client_id, clientSecret: app.client_secret },
      callback,
      redirectUri,
      state,
      verifier,
    );
    const me = () => fetch(`${platform.base}/me`, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
    assert.equal((await me()).status, 200);
    await eventually(() => webhook.received.length === 1);

    listen = shell.start(['listen', app.client_id, '--forward-to', local.url, '--events', 'consent.revoked']);
    await listen.waitForStderr(/^Ready: forwarding the consent\.revoked events of svc_\w+ to /m);

    const granted = await shell.json<Triggered>(['trigger', 'consent.granted', app.client_id, '--player', 'rosa']);
    assert.equal(granted.event, 'consent.granted');
    assert.equal(granted.player.username, 'rosa');
    assert.match(granted.sub, /^ps_/);
    assert.equal(granted.sent.length, 1);
    await eventually(() => webhook.received.length === 2);
    const grantedEvent = delivered(webhook)[1] as ConsentEvent;
    assert.equal(grantedEvent.type, 'consent.granted');
    assert.equal(grantedEvent.id, granted.sent[0]?.event_id);
    assert.equal(grantedEvent.data.sub, granted.sub, 'the same pairwise subject the real Allow gave');
    assert.equal(grantedEvent.data.sub, (delivered(webhook)[0] as ConsentEvent).data.sub);
    assert.deepEqual(grantedEvent.data.scopes, ['city.public.read', 'profile.basic.read']);
    assert.equal(grantedEvent.data.test, undefined, 'a real event, not a test one');

    const revoked = await shell.run(['trigger', 'consent.revoked', app.client_id, '--player', 'rosa']);
    assert.equal(revoked.code, 0, revoked.stderr);
    const lines = revoked.stdout.trim().split('\n');
    assert.equal(lines.length, 3, 'both consents, the Allowed one and the triggered one, end');
    assert.match(
      lines[0] ?? '',
      /^Sent consent\.revoked for rosa with svc_\w+: event [0-9a-f-]{36} \(consent [0-9a-f-]{36}\)\.$/,
    );
    await eventually(() => webhook.received.length === 4);
    const revokedEvents = delivered(webhook).slice(2);
    for (const event of revokedEvents) {
      assert.equal(event.type, 'consent.revoked');
      assert.equal(event.data.reason, 'player_withdrawal');
      assert.equal(event.data.sub, granted.sub);
    }
    assert.deepEqual(
      revokedEvents.map((event) => event.data.consent_id).sort(),
      [tokens.consentId, granted.sent[0]?.consent_id].sort(),
    );

    // The token under the ended consent is refused on its next call, as the contract says.
    const refused = await me();
    assert.equal(refused.status, 403);
    assert.equal(((await refused.json()) as { code: string }).code, 'CONSENT_REVOKED');

    // listen forwarded the two consent.revoked and nothing else.
    await eventually(() => local.received.length === 2);
    assert.deepEqual(
      delivered(local).map((event) => event.type),
      ['consent.revoked', 'consent.revoked'],
    );
    listen.child.kill('SIGINT');
    const stopped = await listen.done;
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.equal(stopped.stdout.trim().split('\n').length, 2, stopped.stdout);
    assert.doesNotMatch(stopped.stdout, /consent\.granted/);

    const session = await fetch(`${platform.console}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'rosa@developer.test', password: 'developer-password' }),
    });
    const { token } = (await session.json()) as { token: string };
    const history = (await (
      await fetch(`${platform.console}/api/apps/${app.client_id}/history`, {
        headers: { authorization: `Bearer ${token}` },
      })
    ).json()) as { data: { action: string; summary: string }[] };
    assert.deepEqual(
      history.data.filter((entry) => entry.action === 'consent.trigger').map((entry) => entry.summary),
      [
        'Triggered consent.revoked for sandbox player rosa',
        'Triggered consent.revoked for sandbox player rosa',
        'Triggered consent.granted for sandbox player rosa',
      ],
    );
  });

  test('refusals say what is wrong: no consent to revoke, a scope the app lacks, a stranger, a disabled player', async () => {
    const nothing = await shell.run(['trigger', 'consent.revoked', app.client_id, '--player', 'rosa']);
    assert.equal(nothing.code, 1);
    assert.match(
      nothing.stderr,
      /The sandbox player rosa has no active consent with svc_\w+: trigger consent\.granted first\./,
    );

    const scope = await shell.run([
      'trigger',
      'consent.granted',
      app.client_id,
      '--player',
      'rosa',
      '--scope',
      'city.reviewed.read',
    ]);
    assert.equal(scope.code, 1);
    assert.match(scope.stderr, /city\.reviewed\.read is not a scope a player can allow svc_\w+/);

    const foreignPlayer = await stranger.run(['trigger', 'consent.granted', app.client_id, '--player', 'rosa']);
    assert.equal(foreignPlayer.code, 1);
    assert.match(foreignPlayer.stderr, /\(NOT_FOUND\)/, 'not their app');

    await stranger.json(['players', 'create', '--username', 'stranger-player'], {
      env: { DEVPLAT_PASSWORD: 'player-password' },
    });
    const notYours = await shell.run(['trigger', 'consent.granted', app.client_id, '--player', 'stranger-player']);
    assert.equal(notYours.code, 1);
    assert.match(notYours.stderr, /The sandbox player stranger-player does not exist or is not yours\./);

    const { player: rosa } = await shell.json<Triggered>([
      'trigger',
      'consent.granted',
      app.client_id,
      '--player',
      'rosa',
    ]);
    await shell.json(['players', 'disable', rosa.id]);
    const disabled = await shell.run(['trigger', 'consent.granted', app.client_id, '--player', rosa.id]);
    assert.equal(disabled.code, 1);
    assert.match(disabled.stderr, /The sandbox player rosa is disabled and cannot allow apps: enable them first\./);

    const event = await shell.run(['trigger', 'consent.expired', app.client_id, '--player', 'rosa']);
    assert.equal(event.code, 2);
    assert.match(event.stderr, /consent\.granted, consent\.revoked/);
    const filter = await shell.run(['listen', app.client_id, '--forward-to', local.url, '--events', 'consent.deleted']);
    assert.equal(filter.code, 2);
    assert.match(
      filter.stderr,
      /--events takes event types separated by commas, each one of consent\.granted, consent\.revoked \(got "consent\.deleted"\)\./,
    );
  });

  test('past 10 triggers a minute: the wait, the limit, and that nothing was sent', async () => {
    const hasty = await signedInShell('hasty@developer.test');
    const made = await hasty.json<{ app: { client_id: string } }>([
      'apps',
      'create',
      '--name',
      'Hasty App',
      '--scope',
      'profile.basic.read',
    ]);
    const client = made.app.client_id;
    await hasty.json(['players', 'create', '--username', 'hasty-player'], {
      env: { DEVPLAT_PASSWORD: 'player-password' },
    });
    const session = await fetch(`${platform.console}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'hasty@developer.test', password: 'developer-password' }),
    });
    const { token } = (await session.json()) as { token: string };
    for (let sent = 0; sent < 10; sent++) {
      const answer = await fetch(`${platform.console}/api/apps/${client}/triggers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ event: 'consent.granted', player: 'hasty-player' }),
      });
      assert.equal(answer.status, 202, await answer.text());
    }

    const refused = await hasty.run(['trigger', 'consent.granted', client, '--player', 'hasty-player']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    assert.match(
      refused.stderr,
      /^Error: Too many triggers: an account may send 10 a minute\. Try again in \d+ seconds?\. \(TOO_MANY_REQUESTS\)\nNothing was sent\. The limit is your account's, for every session and API key of it: run it again after that wait\.\n$/,
    );
    const json = await hasty.run(['trigger', 'consent.revoked', client, '--player', 'hasty-player', '--json']);
    assert.equal(json.code, 1);
    const problem = JSON.parse(json.stderr) as { status: number; code: string; detail: string };
    assert.deepEqual([problem.status, problem.code], [429, 'TOO_MANY_REQUESTS']);
    assert.match(problem.detail, /^Too many triggers: an account may send 10 a minute\. Try again in \d+ seconds?\.$/);

    const other = await shell.run(['trigger', 'consent.revoked', app.client_id, '--player', 'rosa']);
    assert.equal(other.code, 0, `another account is not held back: ${other.stderr}`);
  });
});
