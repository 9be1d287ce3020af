// devplat token as a real process against the real platform: the token alone on stdout (usable at
// once at /cities), --json, and a wrong secret or scope explained.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { developerShell } from './cli.ts';

let platform: TestPlatform;
let shell: ReturnType<typeof developerShell>;
let clientId: string;
let clientSecret: string;

before(async () => {
  platform = await startTestPlatform({}, { webhookWorker: false });
  shell = developerShell(platform.console);
  const password = { DEVPLAT_PASSWORD: 'developer-password' };
  await shell.json(['register', '--email', 'grace@developer.test', '--display-name', 'Grace'], { env: password });
  await shell.json(['login', '--email', 'grace@developer.test'], { env: password });
  const created = await shell.json<{ app: { client_id: string }; client_secret: string }>([
    'apps',
    'create',
    '--name',
    'Token App',
    '--scope',
    'city.public.read',
    '--redirect-uri',
    'http://127.0.0.1:9/cb',
  ]);
  clientId = created.app.client_id;
  clientSecret = created.client_secret;
});
after(() => platform?.close());

const token = (args: string[], secret = clientSecret) =>
  shell.run(['token', clientId, '--client-secret-stdin', '--base-url', platform.base, ...args], {
    input: `${secret}\n`,
  });

test('prints the access token alone on stdout, and it works at /cities at once', async () => {
  const result = await token([]);
  assert.equal(result.code, 0, result.stderr);
  const access = result.stdout.trim();
  assert.equal(result.stdout, `${access}\n`, 'one line: the token');
  const claims = JSON.parse(Buffer.from(access.split('.')[1] ?? '', 'base64url').toString());
  assert.equal(claims.client_id, clientId);
  assert.match(result.stderr, new RegExp(`An app token for ${clientId}: scope city.public.read, expires in 300 s\\.`));
  const cities = await fetch(`${platform.base}/cities?limit=100`, { headers: { authorization: `Bearer ${access}` } });
  assert.equal(cities.status, 200);
});

test('--json prints the token answer', async () => {
  const result = await token(['--json']);
  assert.equal(result.code, 0, result.stderr);
  const answer = JSON.parse(result.stdout);
  assert.deepEqual(Object.keys(answer).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
  assert.equal(answer.token_type.toLowerCase(), 'bearer');
  assert.equal(answer.expires_in, 300);
});

test('a wrong secret, or a user scope an app token cannot carry, exits 1 saying why; no token is printed', async () => {
  const wrong = await token([], 'sv_wrong_secret');
  assert.equal(wrong.code, 1);
  assert.equal(wrong.stdout, '');
  assert.match(wrong.stderr, /refused the client secret of svc_\w+ \(invalid_client\): pass its current secret/);
  const scope = await token(['--scope', 'profile.basic.read']);
  assert.equal(scope.code, 1);
  assert.match(scope.stderr, /refused to issue a token \(invalid_scope\)/);
});
