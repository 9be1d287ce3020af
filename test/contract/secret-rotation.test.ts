// Rotation without downtime, under load: an app keeps asking for tokens with its old secret while
// the developer adds a new one in the console; every request succeeds until the old secret is
// revoked, and every request that starts after the revocation answer fails with invalid_client.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { consoleCall, registerDeveloper } from '@devplat/test/console-api';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';

let platform: TestPlatform;
before(async () => {
  platform = await startTestPlatform();
});
after(() => platform?.close());

interface Outcome {
  startedAt: number;
  endedAt: number;
  status: number;
  error?: string;
}

test('a loop of token requests with the old secret succeeds until the old secret is revoked, then fails', async () => {
  const developer = await registerDeveloper(platform.console);
  const api = (method: string, path: string) => consoleCall(platform.console, method, path, { token: developer.token });
  const created = await consoleCall(platform.console, 'POST', '/apps', {
    token: developer.token,
    body: { name: 'Busy App', scopes: ['city.public.read'] },
  });
  const clientId: string = created.json.app.client_id;
  const oldSecret: string = created.json.client_secret;
  const oldSecretId: string = created.json.app.secrets[0].secret_id;

  const outcomes: Outcome[] = [];
  let stop = false;
  const request = async (secret: string): Promise<Outcome> => {
    const startedAt = performance.now();
    const response = await fetch(`${platform.base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basicAuth(clientId, secret) },
      body: 'grant_type=client_credentials',
    });
    const body = (await response.json()) as { error?: string };
    return { startedAt, endedAt: performance.now(), status: response.status, error: body.error };
  };
  const loop = async () => {
    while (!stop) outcomes.push(await request(oldSecret));
  };
  const loops = Array.from({ length: 4 }, loop);

  const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  await wait(300);
  const rotated = await api('POST', `/apps/${clientId}/secrets`);
  assert.equal(rotated.status, 201);
  const newSecret: string = rotated.json.client_secret;
  await wait(300);
  const revokeStarted = performance.now();
  assert.equal((await api('DELETE', `/apps/${clientId}/secrets/${oldSecretId}`)).status, 204);
  const revokeAnswered = performance.now();
  await wait(300);
  stop = true;
  await Promise.all(loops);

  const before = outcomes.filter((outcome) => outcome.endedAt < revokeStarted);
  const afterwards = outcomes.filter((outcome) => outcome.startedAt > revokeAnswered);
  assert.ok(before.length >= 20, `the loop ran before the revocation (${before.length} requests)`);
  assert.ok(afterwards.length >= 4, `the loop ran after the revocation (${afterwards.length} requests)`);
  assert.deepEqual(
    before.filter((outcome) => outcome.status !== 200),
    [],
    'the old secret works throughout the rotation',
  );
  assert.deepEqual(
    afterwards.filter((outcome) => outcome.status !== 401 || outcome.error !== 'invalid_client'),
    [],
    'after the revocation the old secret is invalid_client on every request',
  );
  assert.equal((await request(newSecret)).status, 200, 'the new secret keeps working');
});
