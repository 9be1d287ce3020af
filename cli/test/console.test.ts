// A developer's session with devplat against the real platform, in the order the quick start
// takes: register, login, whoami, apps, secrets, players, webhooks and deliveries, logout. The
// secrets devplat prints are checked against the real token endpoint.
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { problemMembers } from '@devplat/test/http';
import { basicAuth } from '@devplat/test/oauth';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { createPlayers } from '@devplat/test/players';
import { developerShell, scratchDir } from './cli.ts';

let platform: TestPlatform;
let shell: ReturnType<typeof developerShell>;
const email = 'ada@developer.test';
const password = 'correct-horse-battery';

before(async () => {
  // No worker: deliveries stay where the test puts them.
  platform = await startTestPlatform({}, { webhookWorker: false });
  shell = developerShell(platform.console);
});
after(() => platform?.close());

interface App {
  client_id: string;
  status: string;
  webhook_url: string | null;
  secrets: { secret_id: string; status: string }[];
}

/** A client_credentials token request with this secret: the status says whether it still works. */
async function tokenStatus(clientId: string, clientSecret: string): Promise<number> {
  const response = await fetch(`${platform.base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: basicAuth(clientId, clientSecret),
    },
    body: 'grant_type=client_credentials',
  });
  await response.body?.cancel();
  return response.status;
}

const secretIn = (stdout: string) => /^Client secret {2}(\S+)$/m.exec(stdout)?.[1] as string;

describe('account and session', () => {
  test('register: the account is created; the same e-mail again is refused in words', async () => {
    const args = ['register', '--email', email, '--display-name', 'Ada Lovelace', '--password-stdin'];
    const created = await shell.run(args, { input: `${password}\n` });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /Registered ada@developer\.test \(full account\)/);
    assert.match(created.stdout, /devplat login --email ada@developer\.test/);

    const again = await shell.run(args, { input: `${password}\n` });
    assert.equal(again.code, 1);
    assert.equal(again.stdout, '');
    assert.match(
      again.stderr,
      /^Error: An account with this e-mail address exists\. Sign in instead\. \(EMAIL_TAKEN\)$/m,
    );
    assert.match(again.stderr, /devplat login --email ada@developer\.test/);
  });

  test('with --json a refusal is the Problem on stderr and nothing on stdout', async () => {
    const refused = await shell.run(['register', '--email', email, '--display-name', 'Ada', '--json'], {
      env: { DEVPLAT_PASSWORD: password },
    });
    assert.equal(refused.code, 1);
    assert.equal(refused.stdout, '');
    const problem = JSON.parse(refused.stderr);
    assert.deepEqual(Object.keys(problem).sort(), problemMembers);
    assert.equal(problem.code, 'EMAIL_TAKEN');
    assert.equal(problem.status, 409);
  });

  test('whoami before login: not signed in, exit 3', async () => {
    const result = await shell.run(['whoami']);
    assert.equal(result.code, 3);
    assert.match(result.stderr, /You are not signed in/);
  });

  test('login: a wrong password is refused; the right one stores the session 0600, keyed by console URL', async () => {
    const wrong = await shell.run(['login', '--email', email, '--password-stdin'], { input: 'not-the-password\n' });
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /The e-mail or the password is wrong\. \(INVALID_CREDENTIALS\)/);

    const ok = await shell.run(['login', '--email', email], { env: { DEVPLAT_PASSWORD: password } });
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, new RegExp(`Signed in to ${platform.console} as ${email}`));
    const file = join(shell.configDir, 'credentials.json');
    assert.equal(statSync(file).mode & 0o777, 0o600);
    assert.equal(statSync(shell.configDir).mode & 0o777, 0o700);
    const stored = JSON.parse(readFileSync(file, 'utf8')).sessions[platform.console];
    assert.match(stored.token, /^dps_/);
    assert.doesNotMatch(ok.stdout + ok.stderr, new RegExp(stored.token));
  });

  test('whoami shows the account; --json is the API answer', async () => {
    const human = await shell.run(['whoami']);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /^Email +ada@developer\.test$/m);
    assert.match(human.stdout, /^Display name +Ada Lovelace$/m);
    const account = await shell.json<{ email: string; kind: string }>(['whoami']);
    assert.equal(account.email, email);
    assert.equal(account.kind, 'full');
  });
});

describe('apps and secrets', () => {
  let clientId: string;
  let firstSecret: string;

  test('apps create prints the client secret once, with the warning; the secret works', async () => {
    const result = await shell.run([
      'apps',
      'create',
      '--name',
      'Ada App',
      '--redirect-uri',
      'http://127.0.0.1:8976/callback',
      '--scope',
      'city.public.read',
      '--scope',
      'profile.basic.read',
    ]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Created the app "Ada App"/);
    assert.match(result.stdout, /shown only once/);
    clientId = /^Client ID +(svc_[a-z2-7]{26})$/m.exec(result.stdout)?.[1] as string;
    firstSecret = secretIn(result.stdout);
    assert.ok(clientId && firstSecret);
    assert.match(result.stdout, new RegExp(`devplat try ${clientId} --client-secret-stdin`));
    assert.equal(await tokenStatus(clientId, firstSecret), 200);

    const shown = await shell.run(['apps', 'show', clientId]);
    assert.doesNotMatch(shown.stdout, new RegExp(firstSecret), 'the secret is never shown again');
  });

  test('apps create --json is the API answer: the app and its secret', async () => {
    const created = await shell.json<{ app: App & { scopes: string[] }; client_secret: string }>([
      'apps',
      'create',
      '--name',
      'Script App',
      '--scope',
      'city.public.read',
    ]);
    assert.match(created.app.client_id, /^svc_/);
    assert.deepEqual(created.app.scopes, ['city.public.read']);
    assert.equal(await tokenStatus(created.app.client_id, created.client_secret), 200);
  });

  test("the API's refusal of an app comes out in its words", async () => {
    const result = await shell.run(['apps', 'create', '--name', 'Bad', '--redirect-uri', 'http://example.test/cb']);
    assert.equal(result.code, 1);
    assert.match(result.stderr, /^Error: .*http:\/\/example\.test\/cb.*\(INVALID_REQUEST\)$/m);
  });

  test('apps list and apps show', async () => {
    const list = await shell.run(['apps', 'list']);
    assert.equal(list.code, 0);
    assert.match(list.stdout, /^CLIENT ID +NAME +STATUS +SCOPES +CREATED$/m);
    assert.match(
      list.stdout,
      new RegExp(`^${clientId} +Ada App +active +city\\.public\\.read profile\\.basic\\.read `, 'm'),
    );
    const show = await shell.run(['apps', 'show', clientId]);
    assert.match(show.stdout, /^Redirect URIs +http:\/\/127\.0\.0\.1:8976\/callback$/m);
    assert.match(show.stdout, /^SECRET ID +STATUS +CREATED +REVOKED$/m);
    const unknown = await shell.run(['apps', 'show', 'svc_aaaaaaaaaaaaaaaaaaaaaaaaaa']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /\(NOT_FOUND\)/);
  });

  test('secrets rotate: a second secret, shown once; a third is refused; revoke ends the old one', async () => {
    const rotated = await shell.run(['secrets', 'rotate', clientId]);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.stdout, /shown only once/);
    assert.match(rotated.stdout, /The previous secret stays active/);
    const secondSecret = secretIn(rotated.stdout);
    assert.equal(await tokenStatus(clientId, firstSecret), 200, 'the old secret stays active');
    assert.equal(await tokenStatus(clientId, secondSecret), 200);

    const third = await shell.run(['secrets', 'rotate', clientId]);
    assert.equal(third.code, 1);
    assert.match(third.stderr, /\(SECRET_LIMIT\)/);
    assert.match(third.stderr, new RegExp(`devplat secrets revoke ${clientId} <secret_id>`));

    const app = await shell.json<App>(['apps', 'show', clientId]);
    const oldest = app.secrets[0]?.secret_id as string;
    const revoked = await shell.run(['secrets', 'revoke', clientId, oldest]);
    assert.equal(revoked.code, 0, revoked.stderr);
    assert.match(revoked.stdout, /Revoked the secret/);
    assert.equal(await tokenStatus(clientId, firstSecret), 401);
    assert.equal(await tokenStatus(clientId, secondSecret), 200);
  });

  test('apps disable: the app is disabled and its secret stops working', async () => {
    const created = await shell.json<{ app: App; client_secret: string }>([
      'apps',
      'create',
      '--name',
      'Short-lived',
      '--scope',
      'city.public.read',
    ]);
    const result = await shell.run(['apps', 'disable', created.app.client_id]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /Disabled svc_/);
    assert.equal((await shell.json<App>(['apps', 'show', created.app.client_id])).status, 'disabled');
    assert.equal(await tokenStatus(created.app.client_id, created.client_secret), 401);

    const enabled = await shell.run(['apps', 'enable', created.app.client_id]);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.match(enabled.stdout, /Enabled svc_\w+ \("Short-lived"\): its unexpired tokens work again/);
    assert.equal(await tokenStatus(created.app.client_id, created.client_secret), 200);
  });

  test('apps edit: name, redirect URIs and scopes change, the client id stays; nothing to change is a usage error', async () => {
    const created = await shell.json<{ app: App; client_secret: string }>([
      'apps',
      'create',
      '--name',
      'Typo Callbak',
      '--redirect-uri',
      'https://typo.example.test/callbak',
      '--scope',
      'profile.basic.read',
    ]);
    const clientId = created.app.client_id;
    const edited = await shell.run([
      'apps',
      'edit',
      clientId,
      '--name',
      'Typo Fixed',
      '--redirect-uri',
      'https://typo.example.test/callback',
      '--scope',
      'city.public.read',
      '--scope',
      'profile.basic.read',
    ]);
    assert.equal(edited.code, 0, edited.stderr);
    assert.match(edited.stdout, new RegExp(`^Saved ${clientId} \\("Typo Fixed"\\)\\.$`, 'm'));
    assert.match(edited.stdout, /^Redirect URIs +https:\/\/typo\.example\.test\/callback$/m);
    const shown = await shell.json<App & { name: string; redirect_uris: string[]; scopes: string[] }>([
      'apps',
      'show',
      clientId,
    ]);
    assert.equal(shown.name, 'Typo Fixed');
    assert.deepEqual(shown.redirect_uris, ['https://typo.example.test/callback']);
    assert.deepEqual(shown.scopes, ['city.public.read', 'profile.basic.read']);
    assert.equal(await tokenStatus(clientId, created.client_secret), 200, 'the new app scope gives app tokens');

    const nothing = await shell.run(['apps', 'edit', clientId]);
    assert.equal(nothing.code, 2);
    assert.match(nothing.stderr, /Say what to change/);
    const refused = await shell.run(['apps', 'edit', clientId, '--redirect-uri', 'http://typo.example.test/x']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /\(INVALID_REQUEST\)/);
  });

  test('apps delete: needs --yes; then the app is gone and its secret stops working', async () => {
    const created = await shell.json<{ app: App; client_secret: string }>([
      'apps',
      'create',
      '--name',
      'Doomed',
      '--scope',
      'city.public.read',
    ]);
    const clientId = created.app.client_id;
    const unconfirmed = await shell.run(['apps', 'delete', clientId]);
    assert.equal(unconfirmed.code, 2);
    assert.match(unconfirmed.stderr, /cannot be undone: add --yes/);
    assert.equal(await tokenStatus(clientId, created.client_secret), 200, 'nothing happened without --yes');
    const deleted = await shell.run(['apps', 'delete', clientId, '--yes']);
    assert.equal(deleted.code, 0, deleted.stderr);
    assert.match(deleted.stdout, /^Deleted svc_\w+ \("Doomed"\)/);
    assert.equal(await tokenStatus(clientId, created.client_secret), 401);
    const gone = await shell.run(['apps', 'show', clientId]);
    assert.equal(gone.code, 1);
    assert.match(gone.stderr, /\(NOT_FOUND\)/);
    assert.doesNotMatch((await shell.run(['apps', 'list'])).stdout, new RegExp(clientId));
  });
});

describe('sandbox players', () => {
  test('players create and list; a taken username is refused in words', async () => {
    const created = await shell.run(
      ['players', 'create', '--username', 'ada', '--display-name', 'Ada', '--password-stdin'],
      {
        input: 'player-password\n',
      },
    );
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /Created the sandbox player ada/);
    const list = await shell.run(['players', 'list']);
    assert.match(list.stdout, /^ada +Ada +active /m);
    const taken = await shell.run(['players', 'create', '--username', 'ada'], {
      env: { DEVPLAT_PASSWORD: 'pw-12345678' },
    });
    assert.equal(taken.code, 1);
    assert.match(taken.stderr, /The username ada is taken.*\(USERNAME_TAKEN\)/);
  });

  test('players disable and enable, by username', async () => {
    const disabled = await shell.run(['players', 'disable', 'ada']);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.match(disabled.stdout, /Disabled ada: every token of theirs answers 403 ACCESS_DENIED/);
    assert.match((await shell.run(['players', 'list'])).stdout, /^ada +Ada +disabled /m);
    const enabled = await shell.run(['players', 'enable', 'ada']);
    assert.equal(enabled.code, 0, enabled.stderr);
    assert.match((await shell.run(['players', 'list'])).stdout, /^ada +Ada +active /m);
    const unknown = await shell.run(['players', 'disable', 'nobody']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /You have no sandbox player nobody/);
  });

  test('players list follows next_cursor to the last page; disable finds a player on a later page', async () => {
    // 250 more players: two pages of the API's largest size (200), ada first.
    const prisma = platform.platform.database.prisma;
    const account = await prisma.account.findUniqueOrThrow({ where: { email } });
    await createPlayers(prisma, account.id, 250);
    const rows = await prisma.sandboxPlayer.findMany({
      where: { accountId: account.id },
      orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    });
    assert.equal(rows.length, 251);
    const listed = await shell.json<{ data: { id: string; username: string }[]; next_cursor: null }>([
      'players',
      'list',
    ]);
    assert.equal(listed.next_cursor, null);
    assert.deepEqual(
      listed.data.map((player) => player.id),
      rows.map((row) => row.id),
      'every player once, oldest first',
    );
    const table = await shell.run(['players', 'list']);
    assert.equal(table.code, 0, table.stderr);
    assert.equal(table.stdout.trim().split('\n').length, 252, 'a header and every player');
    const last = rows.at(-1)?.username as string;
    const disabled = await shell.run(['players', 'disable', last]);
    assert.equal(disabled.code, 0, disabled.stderr);
    assert.match(disabled.stdout, new RegExp(`Disabled ${last}:`));
  });
});

describe('webhooks and deliveries', () => {
  test('webhooks test needs a webhook URL; with one, the delivery is listed and only a failed one replays', async () => {
    const plain = await shell.json<{ app: App }>([
      'apps',
      'create',
      '--name',
      'No Hooks',
      '--scope',
      'city.public.read',
    ]);
    const refused = await shell.run(['webhooks', 'test', plain.app.client_id]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /\(NO_WEBHOOK_URL\)/);
    assert.match(refused.stderr, /devplat apps set-webhook/);
    const set = await shell.run(['apps', 'set-webhook', plain.app.client_id, '--url', 'https://hooks.example.test/x']);
    assert.equal(set.code, 0, set.stderr);
    assert.match(set.stdout, /now go to https:\/\/hooks\.example\.test\/x/);
    const both = await shell.run([
      'apps',
      'set-webhook',
      plain.app.client_id,
      '--url',
      'https://a.example.test',
      '--remove',
    ]);
    assert.equal(both.code, 2, 'exactly one of --url and --remove');
    const removed = await shell.json<App>(['apps', 'set-webhook', plain.app.client_id, '--remove']);
    assert.equal(removed.webhook_url, null);

    const hooked = await shell.json<{ app: App }>([
      'apps',
      'create',
      '--name',
      'Hooks',
      '--scope',
      'city.public.read',
      '--webhook-url',
      'https://hooks.example.test/devplat',
    ]);
    const clientId = hooked.app.client_id;
    const sent = await shell.run(['webhooks', 'test', clientId]);
    assert.equal(sent.code, 0, sent.stderr);
    const deliveryId = /delivery ([0-9a-f-]{36})/.exec(sent.stdout)?.[1] as string;
    assert.ok(deliveryId, sent.stdout);

    const listed = await shell.run(['deliveries', 'list', clientId]);
    assert.match(listed.stdout, new RegExp(`^${deliveryId} +consent\\.granted \\(test\\) +pending `, 'm'));
    const notFailed = await shell.run(['deliveries', 'replay', deliveryId]);
    assert.equal(notFailed.code, 1);
    assert.match(notFailed.stderr, /\(DELIVERY_NOT_FAILED\)/);
    assert.match(
      (await shell.run(['deliveries', 'list', clientId, '--status', 'failed'])).stdout,
      /No failed deliveries/,
    );

    // The worker gives up on a delivery after its retries; here the test does it at once.
    await platform.platform.database.prisma.webhookDelivery.update({
      where: { id: deliveryId },
      data: { status: 'failed', lastError: 'connection refused' },
    });
    const failed = await shell.json<{ data: { delivery_id: string }[] }>([
      'deliveries',
      'list',
      clientId,
      '--status',
      'failed',
    ]);
    assert.deepEqual(
      failed.data.map((delivery) => delivery.delivery_id),
      [deliveryId],
    );
    const replayed = await shell.run(['deliveries', 'replay', deliveryId]);
    assert.equal(replayed.code, 0, replayed.stderr);
    const replayId = /\(delivery ([0-9a-f-]{36})\)/.exec(replayed.stdout)?.[1];
    const all = await shell.json<{ data: { delivery_id: string; replay_of: string | null }[] }>([
      'deliveries',
      'list',
      clientId,
    ]);
    assert.equal(all.data.find((delivery) => delivery.delivery_id === replayId)?.replay_of, deliveryId);
  });
});

describe('DEVPLAT_TOKEN and logout', () => {
  test('DEVPLAT_TOKEN is used instead of the stored session; a token the console refuses means exit 3', async () => {
    const token = JSON.parse(readFileSync(join(shell.configDir, 'credentials.json'), 'utf8')).sessions[platform.console]
      .token as string;
    const elsewhere = developerShell(platform.console, scratchDir('token'));
    const viaEnv = await elsewhere.run(['whoami'], { env: { DEVPLAT_TOKEN: token } });
    assert.equal(viaEnv.code, 0, viaEnv.stderr);
    assert.match(viaEnv.stdout, /^Session +from DEVPLAT_TOKEN$/m);
    const bogus = await shell.run(['whoami'], { env: { DEVPLAT_TOKEN: `dps_${'x'.repeat(43)}` } });
    assert.equal(bogus.code, 3);
    assert.match(bogus.stderr, /DEVPLAT_TOKEN holds a session the console no longer accepts/);
  });

  test('logout ends the session at the console and forgets it; then not signed in (exit 3)', async () => {
    const file = join(shell.configDir, 'credentials.json');
    const token = JSON.parse(readFileSync(file, 'utf8')).sessions[platform.console].token as string;
    const result = await shell.run(['logout']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, new RegExp(`Signed out of ${platform.console}\\.`));
    assert.throws(() => statSync(file), /ENOENT/);
    const after = await shell.run(['apps', 'list']);
    assert.equal(after.code, 3);
    assert.match(after.stderr, /You are not signed in/);
    const ended = await shell.run(['whoami'], { env: { DEVPLAT_TOKEN: token } });
    assert.equal(ended.code, 3, 'the console no longer accepts the token');
    assert.equal((await shell.run(['logout'])).code, 3);
  });
});
