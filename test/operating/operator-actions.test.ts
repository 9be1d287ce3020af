// The operator stops one abusive app and ends a player's consents, end to end: the admin command
// (the real entry point, as a child process) against a started platform, checked by what the app,
// its developer and its webhook endpoint meet. A suspended app's user token is refused on its next
// call and its developer cannot lift the suspension; unsuspended, the same token works again (its
// consent only paused). Ending the player's consents refuses /me (403 CONSENT_REVOKED) and the
// refresh token (invalid_grant), and the app receives consent.revoked with reason
// operator_revocation under the player's pairwise subject.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { formField, PlayerAgent, refresh } from '@devplat/test/connected-apps';
import { consoleCall, type Developer, registerDeveloper } from '@devplat/test/console-api';
import { realPostgresUrl } from '@devplat/test/database';
import { assertProblem, call } from '@devplat/test/http';
import type { UserTokens } from '@devplat/test/oauth';
import { connectedApp } from '@devplat/test/operator-fixtures';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { runProcess } from '@devplat/test/process';
import { answer, eventually, startWebhookReceiver, type WebhookReceiver } from '@devplat/test/webhook-receiver';

// The admin command works on a deployment's PostgreSQL; PGlite lives inside the platform's process.
const skip = realPostgresUrl ? false : 'needs DATABASE_URL (a real PostgreSQL the admin command can reach)';

let platform: TestPlatform;
let receiver: WebhookReceiver;
let developer: Developer;
const prefix = `devplat-test:${randomUUID()}:`;
const pairwiseSecret = randomBytes(32).toString('base64url');

before(async () => {
  if (skip) return;
  platform = await startTestPlatform({
    REDIS_KEY_PREFIX: prefix,
    PAIRWISE_SECRET: pairwiseSecret,
    WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_BACKOFF_BASE_MS: '50',
  });
  receiver = await startWebhookReceiver(answer(204));
  developer = await registerDeveloper(platform.console);
});
after(async () => {
  await receiver?.close();
  await platform?.close();
});

/** Runs `admin <args>` as an operator would, on the platform's stores; resolves once it exits. */
function admin(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { DATABASE_URL: _d, REDIS_URL: _r, REDIS_KEY_PREFIX: _p, PAIRWISE_SECRET: _s, ...rest } = process.env;
  const env = {
    ...rest,
    DATABASE_URL: platform.database.url as string,
    PAIRWISE_SECRET: pairwiseSecret,
    ADMIN_OPERATOR: 'ops-test',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: prefix } : {}),
  };
  return runProcess(process.execPath, ['services/admin/src/main.ts', ...args], { env }).done;
}

async function run(args: string[]): Promise<string> {
  const result = await admin(args);
  assert.equal(result.code, 0, result.stderr);
  return result.stdout;
}

const api = (method: string, path: string, body?: unknown) =>
  consoleCall(platform.console, method, path, { token: developer.token, body });

const get = (path: string, tokens: UserTokens) =>
  call(platform.base, path, { headers: { authorization: `Bearer ${tokens.accessToken}` } });

/** The app's page in the console's web UI, as its developer sees it once signed in. */
async function appPage(clientId: string): Promise<string> {
  const browser = new PlayerAgent(platform.console);
  const signIn = await (await browser.get('/signin')).text();
  const signedIn = await browser.post('/signin', {
    csrf: formField(signIn, 'csrf'),
    email: developer.email,
    password: developer.password,
  });
  assert.equal(signedIn.status, 303, `sign-in answered ${signedIn.status}`);
  const page = await browser.get(`/apps/${clientId}`);
  assert.equal(page.status, 200);
  return page.text();
}

test("suspend an app, lift it, then end a player's consents", { skip }, async () => {
  const {
    app,
    player,
    user: tokens,
    events,
    granted,
  } = await connectedApp({ base: platform.base, console: platform.console, developer, receiver }, 'Abusive App');
  assert.equal((await get('/cities?limit=100', tokens)).status, 200);
  assert.equal((await get('/me', tokens)).status, 200);

  // Suspended: the next call is refused, and the developer cannot lift it.
  assert.match(await run(['suspend-app', app.clientId, '--reason', 'abuse report 17']), /: suspended\n$/);
  assertProblem(await get('/cities?limit=100', tokens), 401, 'INVALID_TOKEN');
  const enable = await api('POST', `/apps/${app.clientId}/enable`);
  assert.equal(enable.status, 409, enable.text);
  assert.equal(enable.json.code, 'APP_DISABLED');
  assert.match(enable.json.detail, /is suspended by the platform: contact support/);
  assert.equal((await api('GET', `/apps/${app.clientId}`)).json.status, 'suspended');
  const page = await appPage(app.clientId);
  assert.match(page, /Suspended by the platform/);
  assert.doesNotMatch(page, /Enable app/);

  // Unsuspended: the same token works again (its consent only paused).
  assert.match(await run(['unsuspend-app', app.clientId]), /: unsuspended, now active\n$/);
  assert.equal((await get('/cities?limit=100', tokens)).status, 200);
  assert.equal((await get('/me', tokens)).status, 200);

  // The player's consents end: /me refuses, the refresh token is refused, the app is told.
  assert.match(await run(['end-player-consents', player.username]), /: 1 consent ended \(1 transaction\)\n$/);
  assertProblem(await get('/me', tokens), 403, 'CONSENT_REVOKED');
  const refreshed = await refresh(platform.base, app, tokens.refreshToken);
  assert.equal(refreshed.status, 400, refreshed.text);
  assert.equal(refreshed.json.error, 'invalid_grant');
  const revoked = await eventually(() => events().find((event) => event.type === 'consent.revoked'));
  assert.equal(revoked.data.reason, 'operator_revocation');
  assert.equal(revoked.data.consent_id, tokens.consentId);
  assert.equal(revoked.data.sub, granted.data.sub, "the player's pairwise subject for the app");
});
