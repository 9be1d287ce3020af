// Every code sample of the guides (docs/guides/*.md), run exactly as written against a started
// platform, as a developer pastes it: shell samples with bash, JavaScript ones with Node 24 from
// docs/.run (where docs/node_modules holds oauth4webapi, openid-client and standardwebhooks), Python
// ones with Debian's python3 and its Authlib and requests (skipped, saying why, where they are
// missing; .ci/run installs them). This test plays what the guide leaves to the developer: the
// player's browser, the app's settings. The Python samples print what the JavaScript ones print,
// so each pair shares its driver.
// A runnable block without a `<!-- sample: name -->` marker, or a marker this test does not run,
// fails it: no sample goes untested.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp } from '@devplat/test/connected-apps';
import { consoleCall } from '@devplat/test/console-api';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp } from '@devplat/test/players';
import { freePort, type RunningProcess, runProcess } from '@devplat/test/process';
import { python, skipWithoutAuthlib } from '@devplat/test/python';
import { type ProvisionedApp, provisionApp } from '@devplat/test/sample-apps';
import { eventually, postForgedWebhook } from '@devplat/test/webhook-receiver';
import { Webhook } from 'standardwebhooks';

const repoRoot = new URL('../../', import.meta.url).pathname;
const guidesDir = join(repoRoot, 'docs/guides');
const runDir = join(repoRoot, 'docs/.run');

interface Sample {
  guide: string;
  name: string;
  language: string;
  code: string;
}

function samplesOf(guide: string): Sample[] {
  const text = readFileSync(join(guidesDir, guide), 'utf8');
  const samples: Sample[] = [];
  for (const match of text.matchAll(/(?:<!-- sample: ([\w-]+) -->\s*)?```(\w+)\n([\s\S]*?)```/g)) {
    const [, name, language, code] = match as unknown as [string, string | undefined, string, string];
    if (!['sh', 'bash', 'js', 'ts', 'python'].includes(language)) continue; // output shown, not run
    assert.ok(name, `${guide}: a ${language} block without a <!-- sample: name --> marker:\n${code.slice(0, 200)}`);
    samples.push({ guide, name, language, code });
  }
  return samples;
}

const samples = readdirSync(guidesDir)
  .filter((name) => name.endsWith('.md'))
  .flatMap(samplesOf);

/** How a developer runs a sample of each language: the file's extension and the command. */
const runners: Record<string, { extension: string; command: string; args: string[] }> = {
  sh: { extension: 'sh', command: 'bash', args: ['-euo', 'pipefail'] },
  bash: { extension: 'sh', command: 'bash', args: ['-euo', 'pipefail'] },
  js: { extension: 'mjs', command: process.execPath, args: [] },
  ts: { extension: 'mjs', command: process.execPath, args: [] },
  python: { extension: 'py', command: python, args: [] },
};

function runSample(sample: Sample, env: Record<string, string>): RunningProcess {
  mkdirSync(runDir, { recursive: true });
  const runner = runners[sample.language];
  assert.ok(runner, `no runner for ${sample.language}`);
  const file = join(runDir, `${sample.name}.${runner.extension}`);
  writeFileSync(file, sample.code);
  return runProcess(runner.command, [...runner.args, file], {
    cwd: runDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
  });
}

let platform: TestPlatform;
let app: ProvisionedApp;
let player: ProvisionedApp['player'];
let env: Record<string, string>;

before(async () => {
  platform = await startTestPlatform({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on' });
  app = await provisionApp(platform.console, {
    name: 'Guide App',
    redirectUri: `http://127.0.0.1:${await freePort()}/callback`,
    displayName: 'Ada',
  });
  player = app.player;
  env = {
    BASE_URL: platform.base,
    CLIENT_ID: app.clientId,
    CLIENT_SECRET: app.clientSecret,
    REDIRECT_URI: app.redirectUri,
    WEBHOOK_SECRET: app.webhookSecret,
  };
});
after(() => platform?.close());

/**
 * Runs a code-flow sample: the player opens the address it prints and allows; it prints /me (as
 * Node prints an object, or Python a dict: the same `key: 'value'` pairs, Python's keys quoted).
 */
async function codeFlow(sample: Sample) {
  const running = runSample(sample, env);
  const url = await eventually(() => /^Open (\S+)$/m.exec(running.stdout())?.[1], 20_000);
  const back = await consentOverHttp(url, player);
  assert.equal(`${back.origin}${back.pathname}`, app.redirectUri);
  assert.equal(await (await fetch(back)).text(), 'You can close this tab.');
  const result = await running.done;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /\bapi_version'?: '1\.0'/);
  assert.match(result.stdout, /\bsub'?: 'ps_[\w-]{32}'/);
  assert.match(result.stdout, /\bdisplay_name'?: 'Ada'/);
}

/** Runs a client-credentials sample: it prints every city's name. */
async function clientCredentials(sample: Sample) {
  const result = await runSample(sample, env).done;
  assert.equal(result.code, 0, result.stderr);
  const token = await fetch(`${platform.base}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}`,
    },
    body: 'grant_type=client_credentials',
  });
  const { access_token } = (await token.json()) as { access_token: string };
  const cities = await fetch(`${platform.base}/cities?limit=100`, {
    headers: { authorization: `Bearer ${access_token}` },
  });
  const names = ((await cities.json()) as { data: { name: string }[] }).data.map((city) => city.name);
  assert.ok(names.length > 0);
  assert.deepEqual(result.stdout.trim().split('\n'), names, 'the sample prints every city name');
}

/** Runs a refresh-and-revoke sample with a fresh consent's refresh token. */
async function refreshAndRevoke(sample: Sample) {
  const tokens = await allowOverHttp(
    platform.base,
    { clientId: app.clientId, clientSecret: app.clientSecret, app: { redirectUris: [app.redirectUri] } },
    player,
    'profile.basic.read',
  );
  const result = await runSample(sample, { ...env, REFRESH_TOKEN: tokens.refreshToken }).done;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /^new access token for profile\.basic\.read, 300 s$/m);
  assert.match(result.stdout, /^after revocation: invalid_grant$/m);
  const me = await fetch(`${platform.base}/me`, { headers: { authorization: `Bearer ${tokens.accessToken}` } });
  assert.equal(me.status, 403, 'revoking the refresh token ended the consent');
}

/** Runs a webhook receiver as the app's webhook URL: it verifies a test event, refuses forgeries. */
async function webhookReceiver(sample: Sample) {
  const port = await freePort();
  const running = runSample(sample, { ...env, PORT: String(port) });
  const api = (method: string, path: string, body?: unknown) =>
    consoleCall(platform.console, method, path, { token: app.developer.token, ...(body ? { body } : {}) });
  try {
    const set = await api('PATCH', `/apps/${app.clientId}`, { webhook_url: `http://127.0.0.1:${port}/hooks` });
    assert.equal(set.status, 200, set.text);
    assert.equal((await api('POST', `/apps/${app.clientId}/webhooks/test`, {})).status, 202);
    await eventually(() => /^verified consent\.granted for ps_[\w-]+ \(test\)$/m.test(running.stdout()), 30_000);
    // A forged one is refused with 400 and printed nowhere.
    const forged = await postForgedWebhook(`http://127.0.0.1:${port}/hooks`, '{"type":"consent.granted","data":{}}');
    assert.equal(forged.status, 400);
    // So is a delivery signed right but 10 minutes old: a replay.
    const body = '{"type":"consent.granted","data":{"sub":"ps_replayed"}}';
    const then = new Date(Date.now() - 600_000);
    const replayed = await fetch(`http://127.0.0.1:${port}/hooks`, {
      method: 'POST',
      headers: {
        'webhook-id': 'msg_replayed',
        'webhook-timestamp': String(Math.floor(then.getTime() / 1000)),
        'webhook-signature': new Webhook(app.webhookSecret).sign('msg_replayed', then, body),
      },
      body,
    });
    assert.equal(replayed.status, 400);
  } finally {
    running.child.kill();
    await running.done;
    await api('PATCH', `/apps/${app.clientId}`, { webhook_url: null });
  }
  // Earlier samples' consent events may arrive too, once the URL is set: each verified, the forged none.
  for (const line of running.stdout().trim().split('\n')) {
    assert.match(line, /^verified consent\.(granted|revoked) for ps_[\w-]{32}( \(test\))?$/);
  }
}

const drivers: Record<string, (sample: Sample) => Promise<void>> = {
  'client-credentials': clientCredentials,
  'client-credentials-python': clientCredentials,
  'code-flow-oauth4webapi': codeFlow,
  'code-flow-openid-client': codeFlow,
  'code-flow-authlib': codeFlow,
  'refresh-and-revoke': refreshAndRevoke,
  'refresh-and-revoke-authlib': refreshAndRevoke,
  'webhook-receiver': webhookReceiver,
  'webhook-receiver-python': webhookReceiver,
};

describe('every sample of the guides runs as written', () => {
  test('each runnable block is marked, and each marked sample has a driver here', () => {
    assert.deepEqual(samples.map((sample) => sample.name).sort(), Object.keys(drivers).sort());
  });
  for (const sample of samples) {
    const skip = sample.language === 'python' ? skipWithoutAuthlib : false;
    test(`${sample.guide}: ${sample.name} (${sample.language})`, { timeout: 90_000, skip }, async () => {
      const driver = drivers[sample.name];
      assert.ok(driver, `no driver for ${sample.name}`);
      await driver(sample);
    });
  }
});
