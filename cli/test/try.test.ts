// devplat try end to end: the CLI acts as the developer's app against the real platform; the test
// plays the player's browser, signing in and answering the consent screen over HTTP, then following
// the redirect back to the CLI.
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { idFormats } from '@devplat/contract';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp } from '@devplat/test/players';
import { freePort } from '@devplat/test/process';
import { eventually } from '@devplat/test/webhook-receiver';
import { developerShell, type RunningCli, scratchDir } from './cli.ts';

let platform: TestPlatform;
let shell: ReturnType<typeof developerShell>;
let redirectUri: string;
let clientId: string;
let clientSecret: string;
const player = { username: 'ada', password: 'player-password' };

before(async () => {
  platform = await startTestPlatform({}, { webhookWorker: false });
  shell = developerShell(platform.console);
  redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const password = { DEVPLAT_PASSWORD: 'developer-password' };
  await shell.json(['register', '--email', 'ada@developer.test', '--display-name', 'Ada'], { env: password });
  await shell.json(['login', '--email', 'ada@developer.test'], { env: password });
  const created = await shell.json<{ app: { client_id: string }; client_secret: string }>([
    'apps',
    'create',
    '--name',
    'Try App',
    '--redirect-uri',
    redirectUri,
    '--scope',
    'city.public.read',
    '--scope',
    'profile.basic.read',
  ]);
  clientId = created.app.client_id;
  clientSecret = created.client_secret;
  await shell.json(['players', 'create', '--username', player.username, '--display-name', 'Ada'], {
    env: { DEVPLAT_PASSWORD: player.password },
  });
});
after(() => platform?.close());

function startTry(extra: string[] = [], secret = clientSecret, run = shell) {
  return run.start(
    ['try', clientId, '--client-secret-stdin', '--base-url', platform.base, '--redirect-uri', redirectUri, ...extra],
    { input: `${secret}\n` },
  );
}

async function authorizationUrl(cli: RunningCli): Promise<URL> {
  const [printed] = await cli.waitForStderr(/http:\/\/\S+\/oauth\/authorize\?\S+/);
  return new URL(printed);
}

/** The player's browser: sign in, answer the consent screen, follow the redirect back to the CLI. */
async function browser(cli: RunningCli, decision: 'allow' | 'deny' = 'allow') {
  const back = await consentOverHttp((await authorizationUrl(cli)).href, player, decision);
  assert.equal(`${back.origin}${back.pathname}`, redirectUri);
  const page = await fetch(back);
  return { status: page.status, type: page.headers.get('content-type'), html: await page.text() };
}

describe('the player allows', () => {
  let firstSub: string;

  test('the authorization URL carries PKCE S256 and state; the CLI prints the /me answer', async () => {
    const cli = startTry();
    const url = await authorizationUrl(cli);
    assert.equal(url.origin, platform.playerClient);
    assert.equal(url.searchParams.get('response_type'), 'code');
    assert.equal(url.searchParams.get('client_id'), clientId);
    assert.equal(url.searchParams.get('redirect_uri'), redirectUri);
    assert.equal(url.searchParams.get('scope'), 'city.public.read profile.basic.read');
    assert.equal(url.searchParams.get('code_challenge_method'), 'S256');
    assert.match(url.searchParams.get('code_challenge') ?? '', /^[\w-]{43}$/);
    assert.match(url.searchParams.get('state') ?? '', /^[\w-]{20,}$/);

    const page = await browser(cli);
    assert.equal(page.status, 200);
    assert.equal(page.type, 'text/html; charset=utf-8');
    assert.match(page.html, /You can close this tab/);

    const result = await cli.done;
    assert.equal(result.code, 0, result.stderr);
    firstSub = /^ {2}sub +(\S+)$/m.exec(result.stdout)?.[1] as string;
    assert.match(firstSub, idFormats.pairwiseSubject);
    assert.match(result.stdout, /^ {2}display_name +Ada$/m);
    assert.match(result.stdout, /^Scopes +city\.public\.read profile\.basic\.read$/m);
    assert.match(result.stdout, /--show-tokens/);
    assert.doesNotMatch(result.stdout + result.stderr, /eyJ/, 'no token is printed');
  });

  test('--json prints the /me answer and the scopes, the same pairwise sub, and no token', async () => {
    const cli = startTry(['--json']);
    await browser(cli);
    const result = await cli.done;
    assert.equal(result.code, 0, result.stderr);
    const answer = JSON.parse(result.stdout);
    assert.deepEqual(answer.me, { api_version: '1.0', sub: firstSub, display_name: 'Ada' });
    assert.equal(answer.scope, 'city.public.read profile.basic.read');
    assert.equal(answer.access_token, undefined);
    assert.equal(answer.refresh_token, undefined);
    assert.match(result.stderr, /oauth\/authorize/, 'the address to open goes to stderr');
  });

  test('--show-tokens adds the tokens, and the access token is the one GET /me accepted', async () => {
    const cli = startTry(['--json', '--show-tokens', '--scope', 'profile.basic.read']);
    await browser(cli);
    const result = await cli.done;
    assert.equal(result.code, 0, result.stderr);
    const answer = JSON.parse(result.stdout);
    assert.equal(answer.scope, 'profile.basic.read');
    assert.ok(answer.refresh_token);
    const me = await fetch(`${platform.base}/me`, { headers: { authorization: `Bearer ${answer.access_token}` } });
    assert.equal(me.status, 200);
    assert.equal(((await me.json()) as { sub: string }).sub, firstSub);
  });

  test('without a console session the app is not checked first, and the flow still works', async () => {
    const stranger = developerShell(platform.console, scratchDir('no-session'));
    const cli = stranger.start(
      ['try', clientId, '--base-url', platform.base, '--redirect-uri', redirectUri, '--json'],
      { env: { DEVPLAT_CLIENT_SECRET: clientSecret } },
    );
    await browser(cli);
    const result = await cli.done;
    assert.equal(result.code, 0, result.stderr);
    assert.equal(JSON.parse(result.stdout).me.sub, firstSub);
    assert.equal(JSON.parse(result.stdout).scope, 'profile.basic.read', 'only what /me needs is asked for');
  });
});

describe('the browser', () => {
  /** A BROWSER program that writes down the address it was asked to open. */
  function recordingBrowser() {
    const directory = scratchDir('browser');
    const record = join(directory, 'opened.txt');
    const program = join(directory, 'browser.sh');
    writeFileSync(program, `#!/bin/sh\nprintf '%s' "$1" > '${record}'\n`, { mode: 0o755 });
    return { program, record, opened: () => (existsSync(record) ? readFileSync(record, 'utf8') : null) };
  }

  test('devplat try opens the authorization address in the BROWSER program, and the flow completes from there', async () => {
    const browser = recordingBrowser();
    const cli = shell.start(
      ['try', clientId, '--client-secret-stdin', '--base-url', platform.base, '--redirect-uri', redirectUri],
      { input: `${clientSecret}\n`, env: { BROWSER: browser.program, DISPLAY: undefined, WAYLAND_DISPLAY: undefined } },
    );
    const printed = (await authorizationUrl(cli)).href;
    await cli.waitForStderr(/Opened your browser \(.*browser\.sh\) at this address/);
    await eventually(() => browser.opened() !== null, 5_000);
    assert.equal(browser.opened(), printed, 'the browser got exactly the printed address');
    const back = await consentOverHttp(browser.opened() as string, player);
    await (await fetch(back)).text();
    const result = await cli.done;
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^ {2}display_name +Ada$/m);
  });

  test('--no-browser, or no display and no BROWSER: the address is only printed', async () => {
    for (const [extra, env] of [
      [['--no-browser'], { BROWSER: recordingBrowser().program }],
      [[], { BROWSER: undefined, DISPLAY: undefined, WAYLAND_DISPLAY: undefined }],
    ] as const) {
      const cli = shell.start(
        [
          'try',
          clientId,
          '--client-secret-stdin',
          '--base-url',
          platform.base,
          '--redirect-uri',
          redirectUri,
          '--timeout',
          '1',
          ...extra,
        ],
        { input: `${clientSecret}\n`, env },
      );
      await authorizationUrl(cli);
      await cli.waitForStderr(/^Open this address in a browser\./m);
      const result = await cli.done;
      assert.equal(result.code, 1, 'it waited for a browser that never came back');
      if (env.BROWSER) assert.ok(!existsSync(join(env.BROWSER, '..', 'opened.txt')), 'nothing was opened');
    }
  });
});

describe('refusals come out in words, exit 1', () => {
  test('the player declines', async () => {
    const cli = startTry();
    const page = await browser(cli, 'deny');
    assert.match(page.html, /Access not granted/);
    const result = await cli.done;
    assert.equal(result.code, 1);
    assert.equal(result.stdout, '');
    assert.match(result.stderr, /Error: The player did not allow access \(access_denied\)/);
  });

  test('a redirect URI the app does not have is caught before any browser is involved', async () => {
    const other = `http://127.0.0.1:${await freePort()}/callback`;
    const result = await shell.run(
      ['try', clientId, '--client-secret-stdin', '--base-url', platform.base, '--redirect-uri', other],
      { input: `${clientSecret}\n` },
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`does not have ${other} among its redirect URIs`));
    assert.match(result.stderr, new RegExp(`Pass one it has: --redirect-uri ${redirectUri}`));
    assert.doesNotMatch(result.stderr, /oauth\/authorize/);
  });

  test('an app without profile.basic.read, which GET /me needs', async () => {
    const app = await shell.json<{ app: { client_id: string }; client_secret: string }>([
      'apps',
      'create',
      '--name',
      'Cities Only',
      '--redirect-uri',
      redirectUri,
      '--scope',
      'city.public.read',
    ]);
    const result = await shell.run(
      ['try', app.app.client_id, '--base-url', platform.base, '--redirect-uri', redirectUri],
      {
        env: { DEVPLAT_CLIENT_SECRET: app.client_secret },
      },
    );
    assert.equal(result.code, 1);
    assert.match(result.stderr, /does not have the scope profile\.basic\.read, which GET \/me needs/);
  });

  test('a wrong client secret is refused at the token endpoint', async () => {
    const cli = startTry([], 'svs_not-the-secret');
    await browser(cli);
    const result = await cli.done;
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`refused the client secret of ${clientId} \\(invalid_client\\)`));
  });

  test('a redirect with another state, or from another issuer, is refused (--json: the Problem)', async () => {
    for (const [forge, code] of [
      [(state: string) => `state=${state}x&iss=${encodeURIComponent(platform.base)}`, 'STATE_MISMATCH'],
      [(state: string) => `state=${state}&iss=${encodeURIComponent('https://evil.example.test')}`, 'ISSUER_MISMATCH'],
      [(state: string) => `state=${state}`, 'ISSUER_MISMATCH'],
    ] as const) {
      const cli = startTry(['--json']);
      const state = (await authorizationUrl(cli)).searchParams.get('state') as string;
      await fetch(`${redirectUri}?code=sva_forged&${forge(state)}`);
      const result = await cli.done;
      assert.equal(result.code, 1);
      assert.equal(result.stdout, '');
      const problem = JSON.parse(result.stderr.trim().split('\n').at(-1) as string);
      assert.equal(problem.code, code);
    }
  });

  test('no browser within --timeout', async () => {
    const result = await startTry(['--timeout', '1']).done;
    assert.equal(result.code, 1);
    assert.match(result.stderr, new RegExp(`No answer reached ${redirectUri} within 1 s\\.`));
  });

  test('usage: a redirect URI it cannot listen on, a bad timeout, scopes without profile.basic.read', async () => {
    for (const [extra, message] of [
      [['--redirect-uri', 'https://app.example.test/cb'], /--redirect-uri must be http:\/\/127\.0\.0\.1/],
      [['--timeout', 'soon'], /--timeout must be a whole number of seconds/],
      [['--scope', 'city.public.read'], /--scope must include profile\.basic\.read/],
    ] as const) {
      const result = await shell.run(['try', clientId, '--client-secret-stdin', ...extra], { input: 'x\n' });
      assert.equal(result.code, 2, result.stderr);
      assert.match(result.stderr, message);
      assert.match(result.stderr, /USAGE\n {2}devplat try <client_id>/);
    }
  });
});
