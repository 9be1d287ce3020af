// Every code sample of the guides (docs/guides/*.md), run exactly as written against a started
// platform, as a developer pastes it: shell samples with bash, JavaScript ones with Node 24 from
// docs/.run (where docs/node_modules holds oauth4webapi, openid-client and standardwebhooks). This
// test plays what the guide leaves to the developer: the player's browser, the app's settings.
// A runnable block without a `<!-- sample: name -->` marker, or a marker this test does not run,
// fails it: no sample goes untested.
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { allowOverHttp } from '@devplat/test/connected-apps';
import { consoleCall, type Developer, registerDeveloper } from '@devplat/test/console-api';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { consentOverHttp } from '@devplat/test/players';
import { freePort, type RunningProcess, runProcess } from '@devplat/test/process';
import { eventually, postForgedWebhook } from '@devplat/test/webhook-receiver';

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
    if (!['sh', 'bash', 'js', 'ts'].includes(language)) continue; // output shown, not run
    assert.ok(name, `${guide}: a ${language} block without a <!-- sample: name --> marker:\n${code.slice(0, 200)}`);
    samples.push({ guide, name, language, code });
  }
  return samples;
}

const samples = readdirSync(guidesDir)
  .filter((name) => name.endsWith('.md'))
  .flatMap(samplesOf);

function runSample(sample: Sample, env: Record<string, string>): RunningProcess {
  mkdirSync(runDir, { recursive: true });
  const shell = sample.language === 'sh' || sample.language === 'bash';
  const file = join(runDir, `${sample.name}.${shell ? 'sh' : 'mjs'}`);
  writeFileSync(file, sample.code);
  return runProcess(shell ? 'bash' : process.execPath, shell ? ['-euo', 'pipefail', file] : [file], {
    cwd: runDir,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...env },
  });
}

let platform: TestPlatform;
let developer: Developer;
const player = { username: `guide-${Date.now()}`, password: 'player password' };
let app: { clientId: string; clientSecret: string; webhookSecret: string; redirectUri: string };
let env: Record<string, string>;

before(async () => {
  platform = await startTestPlatform({ WEBHOOK_ALLOW_LOOPBACK_HTTP: 'on' });
  developer = await registerDeveloper(platform.console);
  const api = (method: string, path: string, body?: unknown) =>
    consoleCall(platform.console, method, path, { token: developer.token, ...(body ? { body } : {}) });
  const redirectUri = `http://127.0.0.1:${await freePort()}/callback`;
  const created = await api('POST', '/apps', {
    name: 'Guide App',
    redirect_uris: [redirectUri],
    scopes: ['city.public.read', 'profile.basic.read'],
  });
  assert.equal(created.status, 201, created.text);
  app = {
    clientId: created.json.app.client_id,
    clientSecret: created.json.client_secret,
    webhookSecret: created.json.app.webhook_signing_secret,
    redirectUri,
  };
  assert.equal((await api('POST', '/sandbox-players', { ...player, display_name: 'Ada' })).status, 201);
  env = {
    BASE_URL: platform.base,
    CLIENT_ID: app.clientId,
    CLIENT_SECRET: app.clientSecret,
    REDIRECT_URI: app.redirectUri,
    WEBHOOK_SECRET: app.webhookSecret,
  };
});
after(() => platform?.close());

/** Runs a code-flow sample: the player opens the address it prints and allows; it prints /me. */
async function codeFlow(sample: Sample) {
  const running = runSample(sample, env);
  const url = await eventually(() => /^Open (\S+)$/m.exec(running.stdout())?.[1], 20_000);
  const back = await consentOverHttp(url, player);
  assert.equal(`${back.origin}${back.pathname}`, app.redirectUri);
  assert.equal(await (await fetch(back)).text(), 'You can close this tab.');
  const result = await running.done;
  assert.equal(result.code, 0, result.stderr);
  assert.match(result.stdout, /api_version: '1\.0'/);
  assert.match(result.stdout, /sub: 'ps_[\w-]{32}'/);
  assert.match(result.stdout, /display_name: 'Ada'/);
}

const drivers: Record<string, (sample: Sample) => Promise<void>> = {
  async 'client-credentials'(sample) {
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
  },
  'code-flow-oauth4webapi': codeFlow,
  'code-flow-openid-client': codeFlow,
  async 'refresh-and-revoke'(sample) {
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
  },
  async 'webhook-receiver'(sample) {
    const port = await freePort();
    const running = runSample(sample, { ...env, PORT: String(port) });
    const api = (method: string, path: string, body?: unknown) =>
      consoleCall(platform.console, method, path, { token: developer.token, ...(body ? { body } : {}) });
    try {
      const set = await api('PATCH', `/apps/${app.clientId}`, { webhook_url: `http://127.0.0.1:${port}/hooks` });
      assert.equal(set.status, 200, set.text);
      assert.equal((await api('POST', `/apps/${app.clientId}/webhooks/test`, {})).status, 202);
      await eventually(() => /^verified consent\.granted for ps_[\w-]+ \(test\)$/m.test(running.stdout()), 30_000);
      // A forged one is refused with 400 and printed nowhere.
      const forged = await postForgedWebhook(`http://127.0.0.1:${port}/hooks`, '{"type":"consent.granted","data":{}}');
      assert.equal(forged.status, 400);
    } finally {
      running.child.kill();
      await running.done;
      await api('PATCH', `/apps/${app.clientId}`, { webhook_url: null });
    }
    // Earlier samples' consent events may arrive too, once the URL is set: each verified, the forged none.
    for (const line of running.stdout().trim().split('\n')) {
      assert.match(line, /^verified consent\.(granted|revoked) for ps_[\w-]{32}( \(test\))?$/);
    }
  },
};

describe('every sample of the guides runs as written', () => {
  test('each runnable block is marked, and each marked sample has a driver here', () => {
    assert.deepEqual(samples.map((sample) => sample.name).sort(), Object.keys(drivers).sort());
  });
  for (const sample of samples) {
    test(`${sample.guide}: ${sample.name} (${sample.language})`, { timeout: 90_000 }, async () => {
      const driver = drivers[sample.name];
      assert.ok(driver, `no driver for ${sample.name}`);
      await driver(sample);
    });
  }
});
