// The entry points a person runs: the one-process platform (npm start), the api service alone,
// and the migration command, each as a real process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { createTestDatabase, realPostgresUrl } from '@devplat/test/database';
import { call } from '@devplat/test/http';
import { freePort, repoRoot, startProcess } from '@devplat/test/process';

const scratch = mkdtempSync(join(tmpdir(), 'devplat-e2e-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// The whole environment (npm finds its registry settings through it), less what would steer the
// processes under test.
const baseEnv: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'warn', MANAGEMENT_PORT: '0' };
for (const name of ['DATABASE_URL', 'REDIS_URL', 'PORT', 'BASE_URL', 'DATA_DIR', 'NODE_TEST_CONTEXT'])
  delete baseEnv[name];
const ready = /Developer Platform is ready/;

/** Free ports for every listener, so a test never meets a platform someone else started. */
async function listeners(dataDir: string) {
  const port = await freePort();
  return {
    port,
    env: {
      ...baseEnv,
      DATA_DIR: join(scratch, dataDir),
      BASE_URL: `http://127.0.0.1:${port}/developer/v1`,
      PLAYER_CLIENT_URL: `http://127.0.0.2:${await freePort()}`,
      CONSOLE_URL: `http://127.0.0.3:${await freePort()}`,
      AUTH_INTERNAL_URL: `http://127.0.0.1:${await freePort()}`,
      MOCK_BASE_URL: `http://127.0.0.1:${await freePort()}/developer/v1`,
    },
  };
}

async function checkPublicOperations(base: string) {
  const capabilities = await call(base, '/capabilities');
  assert.equal(capabilities.status, 200);
  const regions = await call(base, '/regions');
  assert.equal(regions.status, 200);
  assert.ok(regions.json.data.length >= 8);
  const status = await call(base, '/status');
  assert.equal(status.json.status, 'sandbox');
}

describe('the one-process platform on embedded defaults', () => {
  test('starts, prints its URLs, serves the contract, stops cleanly, and starts again on its data', async () => {
    const { port, env } = await listeners('data');
    const first = await startProcess(process.execPath, ['services/platform/src/main.ts'], env, ready);
    assert.match(first.output(), new RegExp(`Public API\\s+http://127\\.0\\.0\\.1:${port}/developer/v1`));
    assert.match(first.output(), /pglite/);
    const consoleOrigin = /Console\s+(http:\/\/\S+)/.exec(first.output())?.[1];
    assert.equal((await fetch(`${consoleOrigin}/signin`)).status, 200, 'the console is up');
    await checkPublicOperations(`http://127.0.0.1:${port}/developer/v1`);
    assert.equal(await first.stop(), 0);

    const second = await startProcess(process.execPath, ['services/platform/src/main.ts'], env, ready);
    await checkPublicOperations(`http://127.0.0.1:${port}/developer/v1`);
    assert.equal(await second.stop(), 0);
  });

  test('the README command `npm start` installs what is missing and runs it', async () => {
    const { port, env } = await listeners('npm-start');
    const started = await startProcess('npm', ['start', '--silent'], env, ready, 180_000);
    await checkPublicOperations(`http://127.0.0.1:${port}/developer/v1`);
    await started.stop();
  });

  test("the npm wrapper passes a supervisor's SIGTERM to the platform and exits with its code", async () => {
    const { port, env } = await listeners('wrapper-signal');
    const started = await startProcess(process.execPath, ['infra/toolchain/run.mjs', 'start'], env, ready);
    const exited = new Promise<number | null>((resolve) => started.child.once('exit', (code) => resolve(code)));
    // To the wrapper alone, as a container runtime or a supervisor sends it: not to its group.
    process.kill(started.child.pid as number, 'SIGTERM');
    assert.equal(await exited, 0);
    await assert.rejects(fetch(`http://127.0.0.1:${port}/developer/v1/status`), 'the platform has stopped');
  });

  test('a port already in use is reported in one line', async () => {
    const { port, env } = await listeners('busy');
    // Any process may hold the port; a plain listener does it without a second embedded database.
    const holder = createServer().listen(port, '127.0.0.1');
    await once(holder, 'listening');
    try {
      const second = spawnSync(process.execPath, ['services/platform/src/main.ts'], {
        cwd: repoRoot,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      assert.equal(second.status, 1);
      assert.match(second.stderr, /^the platform could not start: a port is already in use/);
    } finally {
      holder.close();
    }
  });
});

// A machine whose loopback has 127.0.0.1 alone, as a Mac's has by default: a network namespace of
// its own, with its loopback given only that address.
const oneLoopbackAddress = 'ip link set lo up && ip addr del 127.0.0.1/8 dev lo && ip addr add 127.0.0.1/32 dev lo';
const namespaces = spawnSync('unshare', ['--net', 'sh', '-c', oneLoopbackAddress], { encoding: 'utf8' });

describe('a machine without the loopback addresses the platform needs', {
  skip: namespaces.status === 0 ? false : `no network namespace here (${namespaces.stderr.trim()})`,
}, () => {
  test('npm start names the missing addresses, prints the commands that add them, and exits', async () => {
    const { env } = await listeners('no-aliases');
    const started = spawnSync(
      'unshare',
      ['--net', 'sh', '-c', `${oneLoopbackAddress} && exec "$0" services/platform/src/main.ts`, process.execPath],
      { cwd: repoRoot, env, encoding: 'utf8', timeout: 120_000 },
    );
    assert.equal(started.status, 1, started.stderr);
    const playerClient = new URL(env.PLAYER_CLIENT_URL).hostname;
    assert.match(
      started.stderr,
      new RegExp(
        `^the platform could not start: ${playerClient.replaceAll('.', '\\.')} is not an address of this machine`,
      ),
    );
    assert.ok(
      started.stderr.includes('sudo ifconfig lo0 alias 127.0.0.2 up && sudo ifconfig lo0 alias 127.0.0.3 up'),
      started.stderr,
    );
    assert.ok(started.stderr.includes('sudo ip addr add 127.0.0.2/8 dev lo && sudo ip addr add 127.0.0.3/8 dev lo'));
    assert.doesNotMatch(started.stdout, /Developer Platform is ready/, 'it never falls back to 127.0.0.1');
  });
});

describe('split deployment on PostgreSQL', { skip: realPostgresUrl ? false : 'DATABASE_URL is not set' }, () => {
  test('pnpm db:migrate applies the migrations once, then reports the database up to date', async () => {
    const database = await createTestDatabase({ seed: false });
    try {
      // createTestDatabase migrated it already: a second migrate must find nothing to do.
      const again = spawnSync(process.execPath, ['packages/2-infrastructure/db/scripts/migrate.ts'], {
        cwd: repoRoot,
        env: { ...baseEnv, DATABASE_URL: database.url ?? '' },
        encoding: 'utf8',
      });
      assert.equal(again.stdout.trim(), 'database is up to date', again.stderr);
      const seeded = spawnSync(process.execPath, ['packages/3-domain/domain/scripts/seed-registry.ts'], {
        cwd: repoRoot,
        env: { ...baseEnv, DATABASE_URL: database.url ?? '' },
        encoding: 'utf8',
      });
      assert.match(seeded.stdout, /^seeded \d+ countries and \d+ cities/, seeded.stderr);
    } finally {
      await database.drop();
    }
  });

  test('the api service starts alone against DATABASE_URL, reporting the capabilities `npm start` does', async () => {
    const database = await createTestDatabase();
    const port = await freePort();
    try {
      const api = await startProcess(
        process.execPath,
        ['services/api/src/main.ts'],
        { ...baseEnv, DATABASE_URL: database.url ?? '', PORT: String(port) },
        /api service: /,
      );
      try {
        await checkPublicOperations(`http://127.0.0.1:${port}/developer/v1`);
        const { json } = await call(`http://127.0.0.1:${port}/developer/v1`, '/capabilities');
        // The console and the worker run beside it in a sandbox deployment, as in the one process.
        assert.equal(json.capabilities.developer_console, true);
        assert.equal(json.capabilities.consent_webhooks, true);
        assert.equal(json.capabilities.oauth_client_credentials, true);
      } finally {
        assert.equal(await api.stop(), 0);
      }
    } finally {
      await database.drop();
    }
  });
});
