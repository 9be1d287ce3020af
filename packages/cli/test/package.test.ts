// devplat outside a checkout: `npm run cli:pack` makes the tarball, `npm install -g` puts it into an
// empty prefix, and the installed command, run from an empty directory with nothing but Node 24 and
// the system on PATH, works against the real platform: register, login, an app, a token.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { runProcess } from '@devplat/test/process';

const repoRoot = new URL('../../../', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'devplat-package-'));
const prefix = join(scratch, 'prefix');
const home = join(scratch, 'home');
let tarball: string;
let platform: TestPlatform;

/** Node 24 (this test's own node) and the system's programs: nothing of the checkout. */
const path = [dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':');

/** Runs the installed devplat; asynchronously, as the platform answers from this very process. */
function installed(args: string[], env: Record<string, string> = {}, input = '') {
  return runProcess(join(prefix, 'bin/devplat'), args, {
    cwd: home,
    env: { PATH: path, HOME: home, DEVPLAT_CONSOLE_URL: platform.console, DEVPLAT_BASE_URL: platform.base, ...env },
    input,
  }).done;
}

before(async () => {
  execFileSync('mkdir', ['-p', prefix, home]);
  tarball = execFileSync(process.execPath, ['packages/cli/scripts/pack.ts', join(scratch, 'packed')], {
    cwd: repoRoot,
    encoding: 'utf8',
  }).trim();
  const install = spawnSync(
    'npm',
    ['install', '--global', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball],
    { cwd: home, env: { PATH: path, HOME: home }, encoding: 'utf8', timeout: 120_000 },
  );
  assert.equal(install.status, 0, install.stderr);
  platform = await startTestPlatform({}, { webhookWorker: false });
});
after(async () => {
  await platform?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe('devplat installed from its packed tarball', () => {
  test('the tarball holds JavaScript only: a manifest, a README and one bundled file', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n').sort();
    assert.deepEqual(files, ['package/README.md', 'package/dist/devplat.mjs', 'package/package.json']);
    const installedFiles = readdirSync(join(prefix, 'lib/node_modules/devplat'), { recursive: true }) as string[];
    assert.deepEqual(
      installedFiles.filter((file) => file.endsWith('.ts')),
      [],
    );
    assert.ok(!existsSync(join(prefix, 'lib/node_modules/devplat/node_modules')), 'it depends on nothing');
  });

  test('--version and help, from an empty directory', async () => {
    const version = await installed(['--version']);
    assert.equal(version.code, 0, version.stderr);
    assert.equal(version.stdout.trim(), 'devplat 0.1.0');
    const help = await installed(['help']);
    assert.equal(help.code, 0, help.stderr);
    for (const command of ['apps edit', 'apps delete', 'players disable', 'token', 'try']) {
      assert.ok(help.stdout.includes(command), `help lists ${command}`);
    }
  });

  test('register, login, an app, and a client-credentials token that GET /cities accepts', async () => {
    const password = { DEVPLAT_PASSWORD: 'installed-password' };
    const registered = await installed(
      ['register', '--email', 'pkg@developer.test', '--display-name', 'Pack'],
      password,
    );
    assert.equal(registered.code, 0, registered.stderr);
    assert.equal((await installed(['login', '--email', 'pkg@developer.test'], password)).code, 0);
    assert.ok(existsSync(join(home, '.config/devplat/credentials.json')), 'the session is kept under HOME');
    const created = await installed(['apps', 'create', '--name', 'Installed', '--scope', 'city.public.read', '--json']);
    assert.equal(created.code, 0, created.stderr);
    const { app, client_secret } = JSON.parse(created.stdout) as { app: { client_id: string }; client_secret: string };
    const token = await installed(['token', app.client_id, '--client-secret-stdin'], {}, `${client_secret}\n`);
    assert.equal(token.code, 0, token.stderr);
    const cities = await fetch(`${platform.base}/cities?limit=100`, {
      headers: { authorization: `Bearer ${token.stdout.trim()}` },
    });
    assert.equal(cities.status, 200);
  });
});
