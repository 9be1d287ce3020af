// devplat logs tail as a developer runs it: a line per call of the app as the platform answers it,
// a failing one (a wrong secret, a revoked consent) within a second with its error code and the
// answer's X-Request-Id; --status and --json; a bad filter or another's app refused before anything
// streams; Ctrl-C ending it with exit 0.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp } from '@devplat/test/connected-apps';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { freePort } from '@devplat/test/process';
import { developerShell } from './cli.ts';

let platform: TestPlatform;
let shell: ReturnType<typeof developerShell>;
let app: { clientId: string; clientSecret: string; app: { redirectUris: string[] } };
const player = { username: 'tailer', password: 'player-password' };

before(async () => {
  platform = await startTestPlatform({}, { webhookWorker: false });
  shell = developerShell(platform.console);
  const password = { DEVPLAT_PASSWORD: 'developer-password' };
  await shell.json(['register', '--email', 'tail@developer.test', '--display-name', 'Tail'], { env: password });
  await shell.json(['login', '--email', 'tail@developer.test'], { env: password });
  const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const created = await shell.json<{ app: { client_id: string }; client_secret: string }>([
    'apps',
    'create',
    '--name',
    'Tailed App',
    '--redirect-uri',
    redirectUri,
    '--scope',
    'city.public.read',
    '--scope',
    'profile.basic.read',
  ]);
  app = { clientId: created.app.client_id, clientSecret: created.client_secret, app: { redirectUris: [redirectUri] } };
  await shell.json(['players', 'create', '--username', player.username], {
    env: { DEVPLAT_PASSWORD: player.password },
  });
});
after(() => platform?.close());

async function tokenCall(secret: string) {
  const response = await fetch(`${platform.base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(app.clientId, secret) },
    body: 'grant_type=client_credentials&scope=city.public.read',
  });
  await response.arrayBuffer();
  return { status: response.status, requestId: response.headers.get('x-request-id') as string };
}

const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('devplat logs tail', () => {
  test('shows a failing call within a second with its error code and request id; Ctrl-C stops it', async () => {
    const tail = shell.start(['logs', 'tail', app.clientId, '--status', '4xx']);
    await tail.waitForStderr(/^Ready: tailing the request log of svc_\w+ \(only status 4xx\) \(Ctrl-C to stop\)\./m);

    const success = await tokenCall(app.clientSecret);
    assert.equal(success.status, 200);
    const wrongSecret = await tokenCall('not the secret');
    assert.equal(wrongSecret.status, 401);
    const sent = Date.now();
    await tail.waitForStdout(new RegExp(literally(wrongSecret.requestId)), 5_000);
    const took = Date.now() - sent;
    assert.ok(took < 1_000, `the failing call showed after ${took} ms`);

    // A revoked consent: the player allows the app, the app revokes its refresh token, /me refuses.
    const user = await allowOverHttp(platform.base, app, player, 'profile.basic.read');
    const revoked = await fetch(`${platform.base}/oauth/revoke`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: basicAuth(app.clientId, app.clientSecret),
      },
      body: new URLSearchParams({ token: user.refreshToken }),
    });
    assert.equal(revoked.status, 200);
    const me = await fetch(`${platform.base}/me`, { headers: { authorization: `Bearer ${user.accessToken}` } });
    assert.equal(me.status, 403);
    const meId = me.headers.get('x-request-id') as string;
    const meSent = Date.now();
    await tail.waitForStdout(new RegExp(literally(meId)), 5_000);
    assert.ok(Date.now() - meSent < 1_000, `the refused /me showed after ${Date.now() - meSent} ms`);

    tail.child.kill('SIGINT');
    const result = await tail.done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /Stopped\.\n$/);
    const lines = result.stdout.trim().split('\n');
    assert.equal(lines.length, 2, `only the 4xx calls:\n${result.stdout}`);
    assert.match(
      lines[0] ?? '',
      new RegExp(
        `^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}Z {2}token {3}401 {2}invalid_client {7}${wrongSecret.requestId} {2}[\\d.]+ ms {2}client authentication failed, client_credentials$`,
      ),
    );
    assert.match(
      lines[1] ?? '',
      new RegExp(`^[\\d-]+ [\\d:]+Z {2}me {6}403 {2}CONSENT_REVOKED {6}${meId} {2}[\\d.]+ ms {2}subject ps_\\w+`),
    );
    assert.ok(!result.stdout.includes(success.requestId), 'a 200 is not a 4xx');
    for (const secret of [app.clientSecret, user.accessToken, user.refreshToken, user.consentId]) {
      assert.ok(!result.stdout.includes(secret) && !result.stderr.includes(secret), 'no token or secret printed');
    }
  });

  test('--json prints each entry as the API gives it; filters narrow it', async () => {
    const tail = shell.start([
      'logs',
      'tail',
      app.clientId,
      '--operation',
      'token',
      '--error',
      'invalid_client',
      '--json',
    ]);
    await tail.waitForStderr(/^Ready/m);
    await tokenCall(app.clientSecret);
    const wrong = await tokenCall('wrong again');
    await tail.waitForStdout(new RegExp(literally(wrong.requestId)), 5_000);
    tail.child.kill('SIGINT');
    const result = await tail.done;
    assert.equal(result.code, 0, result.stderr);
    const entries = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    assert.equal(entries.length, 1, result.stdout);
    assert.equal(entries[0].request_id, wrong.requestId);
    assert.equal(entries[0].operation, 'token');
    assert.equal(entries[0].status, 401);
    assert.equal(entries[0].error, 'invalid_client');
    assert.equal(entries[0].client_authenticated, false);
    assert.match(entries[0].id, /^\d+-\d+-u$/);
  });

  test('a bad filter or an app that is not yours is refused before anything streams', async () => {
    const badStatus = await shell.run(['logs', 'tail', app.clientId, '--status', '3xx']);
    assert.equal(badStatus.code, 2);
    assert.match(badStatus.stderr, /--status must be one of 2xx, 4xx, 5xx \(got "3xx"\)/);
    const badError = await shell.run(['logs', 'tail', app.clientId, '--error', 'nonsense']);
    assert.equal(badError.code, 1);
    assert.match(badError.stderr, /error must be an OAuth error/);
    const unknown = await shell.run(['logs', 'tail', `svc_${'q'.repeat(26)}`]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /does not exist or is not yours/);
  });
});
