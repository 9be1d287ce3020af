// The triggers' rate (POST /api/apps/{client_id}/triggers): an account sends at most 10 a minute,
// whatever session or API key sends them; the 11th answers 429 TOO_MANY_REQUESTS with Retry-After
// and does nothing (no consent, no event, no history entry); another account is not held back.
// Every answer is checked against the console API document.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, test } from 'node:test';
import { consoleCall, type Developer, registerDeveloper } from '@devplat/test/console-api';
import { assertProblem } from '@devplat/test/http';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';

let platform: TestPlatform;

before(async () => {
  platform = await startTestPlatform({}, { webhookWorker: false });
});
after(() => platform?.close());

const prisma = () => platform.platform.database.prisma;
const api = (token: string, method: string, path: string, body?: unknown) =>
  consoleCall(platform.console, method, path, { token, ...(body !== undefined && { body }) });

/** A developer with an app that players may allow, and a sandbox player of theirs. */
async function developerWithApp(): Promise<{ developer: Developer; clientId: string; appId: string; player: string }> {
  const developer = await registerDeveloper(platform.console);
  const app = await api(developer.token, 'POST', '/apps', {
    name: 'Rate App',
    redirect_uris: [],
    scopes: ['profile.basic.read'],
  });
  assert.equal(app.status, 201, app.text);
  const player = `rate-${randomUUID().slice(0, 8)}`;
  const made = await api(developer.token, 'POST', '/sandbox-players', {
    username: player,
    password: 'player-password',
  });
  assert.equal(made.status, 201, made.text);
  const clientId = app.json.app.client_id as string;
  const { id: appId } = await prisma().app.findUniqueOrThrow({ where: { clientId } });
  return { developer, clientId, appId, player };
}

/** What the triggers of an app have done: its consents (active ones), events and history entries. */
async function doneFor(appId: string) {
  const [consents, active, events, audited] = await Promise.all([
    prisma().consent.count({ where: { appId } }),
    prisma().consent.count({ where: { appId, status: 'active' } }),
    prisma().outboxEvent.count({ where: { appId } }),
    prisma().auditRecord.count({ where: { appId, action: 'consent.trigger' } }),
  ]);
  return { consents, active, events, audited };
}

test('the 11th trigger of an account in a minute: 429 with Retry-After, and nothing done; another account goes on', async () => {
  const { developer, clientId, appId, player } = await developerWithApp();
  const path = `/apps/${clientId}/triggers`;
  const granted = { event: 'consent.granted', player };
  for (let sent = 0; sent < 9; sent++) assert.equal((await api(developer.token, 'POST', path, granted)).status, 202);
  const key = await api(developer.token, 'POST', '/api-keys', { name: 'triggers', scope: 'write' });
  assert.equal(key.status, 201, key.text);
  assert.equal((await api(key.json.key, 'POST', path, granted)).status, 202, 'the 10th, by an API key of the account');
  const before = await doneFor(appId);
  assert.deepEqual(before, { consents: 10, active: 10, events: 10, audited: 10 });

  for (const [token, body] of [
    [developer.token, granted],
    [key.json.key as string, granted],
    [developer.token, { event: 'consent.revoked', player }],
  ] as const) {
    const refused = await api(token, 'POST', path, body);
    assertProblem(refused, 429, 'TOO_MANY_REQUESTS');
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.equal(
      refused.json.detail,
      `Too many triggers: an account may send 10 a minute. Try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    );
  }
  assert.deepEqual(await doneFor(appId), before, 'no consent granted or ended, no event, no history entry');

  const other = await developerWithApp();
  const answer = await api(other.developer.token, 'POST', `/apps/${other.clientId}/triggers`, {
    event: 'consent.granted',
    player: other.player,
  });
  assert.equal(answer.status, 202, answer.text);
  assert.deepEqual(await doneFor(other.appId), { consents: 1, active: 1, events: 1, audited: 1 });
});
