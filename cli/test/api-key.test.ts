// devplat with an API key, against the real platform: keys create (the key printed once), list and
// revoke from a signed-in session; then, in a terminal with no session at all, every signed-in
// command runs with the key from DEVPLAT_API_KEY or --api-key-stdin; a read key changes nothing; no
// key manages keys; a key the console refuses (revoked, expired) says why and how to make a new one.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { registerDeveloper } from '@devplat/test/console-api';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { developerShell, scratchDir } from './cli.ts';

let platform: TestPlatform;
/** The developer's own terminal, signed in. */
let shell: ReturnType<typeof developerShell>;
/** A CI job's: no session, no credentials file. */
let ci: ReturnType<typeof developerShell>;

interface Created {
  api_key: { id: string; name: string; scope: string; hint: string; expires_at: string };
  key: string;
}

before(async () => {
  platform = await startTestPlatform({}, { webhookWorker: false });
  const developer = await registerDeveloper(platform.console);
  shell = developerShell(platform.console);
  ci = developerShell(platform.console, scratchDir('ci'));
  const login = await shell.run(['login', '--email', developer.email, '--password-stdin'], {
    input: `${developer.password}\n`,
  });
  assert.equal(login.code, 0, login.stderr);
});
after(() => platform?.close());

const keyPattern = /devplat_key_[0-9A-Za-z]{43}/;

describe('keys create, list and revoke', () => {
  test('create prints the key once with its warning; list shows its last four characters only', async () => {
    const result = await shell.run([
      'keys',
      'create',
      '--name',
      'CI deploy',
      '--scope',
      'write',
      '--expires-in-days',
      '7',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Created the API key "CI deploy" \(write\), valid until \d{4}-\d\d-\d\d \S+Z\.$/m);
    const key = new RegExp(`^API key +(${keyPattern.source})$`, 'm').exec(result.stdout)?.[1] as string;
    assert.ok(key, result.stdout);
    assert.match(result.stdout, /! Save this API key now: it is shown only once/);
    const listed = await shell.run(['keys', 'list']);
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /^ID +NAME +SCOPE +KEY +STATUS +CREATED +EXPIRES +LAST USED$/m);
    assert.match(listed.stdout, new RegExp(`CI deploy +write +\\.\\.\\.${key.slice(-4)} +active .* never$`, 'm'));
    assert.doesNotMatch(listed.stdout, keyPattern);
  });

  test('a lifetime beyond 365 days is a usage error; --api-key is never taken as an argument', async () => {
    const long = await shell.run(['keys', 'create', '--name', 'x', '--scope', 'read', '--expires-in-days', '366']);
    assert.equal(long.code, 2);
    assert.match(long.stderr, /--expires-in-days must be a whole number of days from 1 to 365 \(got "366"\)/);
    const inline = await shell.run(['apps', 'list', '--api-key', 'devplat_key_x']);
    assert.equal(inline.code, 2);
    assert.match(
      inline.stderr,
      /devplat never takes an API key as an argument .*: use DEVPLAT_API_KEY or --api-key-stdin\./,
    );
  });
});

describe('a terminal with only a key', () => {
  let write: Created;
  let read: Created;
  before(async () => {
    write = await shell.json<Created>(['keys', 'create', '--name', 'ci write', '--scope', 'write']);
    read = await shell.json<Created>(['keys', 'create', '--name', 'ci read', '--scope', 'read']);
  });

  test('DEVPLAT_API_KEY and --api-key-stdin drive apps create, apps list and whoami', async () => {
    assert.equal((await ci.run(['apps', 'list'])).code, 3, 'no session here');
    const env = { DEVPLAT_API_KEY: write.key };
    const created = await ci.run(['apps', 'create', '--name', 'Keyed', '--scope', 'city.public.read'], { env });
    assert.equal(created.code, 0, created.stderr);
    const listed = await ci.run(['apps', 'list'], { env });
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /Keyed/);
    const piped = await ci.run(['apps', 'list', '--api-key-stdin'], { input: `${read.key}\n` });
    assert.equal(piped.code, 0, piped.stderr);
    assert.match(piped.stdout, /Keyed/);
    const whoami = await ci.run(['whoami'], { env: { DEVPLAT_API_KEY: read.key } });
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.match(whoami.stdout, /^API key +from DEVPLAT_API_KEY$/m);
    assert.doesNotMatch(listed.stdout + piped.stdout + whoami.stdout + whoami.stderr, keyPattern, 'never printed');
  });

  test('a read key changes nothing; no key manages keys; a session token is not a key', async () => {
    const refused = await ci.run(['apps', 'create', '--name', 'Nope', '--scope', 'city.public.read'], {
      env: { DEVPLAT_API_KEY: read.key },
    });
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /read scope: POST changes something .*\(INSUFFICIENT_SCOPE\)/);
    assert.match(refused.stderr, /use a key with the write scope/);
    const keys = await ci.run(['keys', 'list'], { env: { DEVPLAT_API_KEY: write.key } });
    assert.equal(keys.code, 3);
    assert.match(keys.stderr, /An API key \(DEVPLAT_API_KEY\) cannot manage API keys or sign out/);
    const both = await ci.run(['token', 'svc_x', '--client-secret-stdin', '--api-key-stdin'], { input: 'x\n' });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /would both read the first line of stdin: give the API key in DEVPLAT_API_KEY instead/);
    const session = await ci.run(['apps', 'list'], { env: { DEVPLAT_API_KEY: `dps_${'x'.repeat(43)}` } });
    assert.equal(session.code, 2);
    assert.match(session.stderr, /DEVPLAT_API_KEY must hold an API key .*: that is a console session token/);
  });

  test('revoked: the next command says so and how to make a new key (exit 3)', async () => {
    const revoked = await shell.run(['keys', 'revoke', read.api_key.id]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /Revoked the API key .*: it is refused from its next call\./);
    const after = await ci.run(['apps', 'list', '--api-key-stdin'], { input: `${read.key}\n` });
    assert.equal(after.code, 3);
    assert.match(after.stderr, /^Error: This API key was revoked at \S+Z: .*\(NOT_SIGNED_IN\)$/m);
    assert.match(after.stderr, /The API key read from stdin is not accepted/);
    assert.match(after.stderr, /Make a new one while signed in: devplat keys create --name <name> --scope read\|write/);
    const listed = await shell.json<{ data: { id: string; status: string }[] }>(['keys', 'list']);
    assert.equal(listed.data.find((key) => key.id === read.api_key.id)?.status, 'revoked');
  });
});
