// The image as a platform team runs it: built from infra/container/Containerfile with build.sh
// (over a local stand-in of the official base where none can be pulled), then `migrate`, `auth` and
// `api` containers under podman, read-only, as uid 1000 with every capability dropped, against the
// machine's PostgreSQL and Redis: /readyz, a client-credentials token, /cities, the code flow to
// /me, and podman stop draining each to exit 0. And that it stays lean: at most 120 MB above its
// base, no Prisma CLI, studio, react, mysql2 or dev tools, every command's imports present, and the
// schema engine the one infra/toolchain/versions.json records.
import assert from 'node:assert/strict';
import { execFile, type SpawnSyncReturns, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { applyMigrations, openDatabase } from '@devplat/db';
import { seedRegistry } from '@devplat/domain/registry';
import { createTestApp } from '@devplat/test/apps';
import { realPostgresUrl } from '@devplat/test/database';
import { createPlayer } from '@devplat/test/players';
import { freePort, repoRoot } from '@devplat/test/process';
import { bearer, clientCredentialsToken, replicaServer, userToken } from '@devplat/test/replica-oauth';
import { type Deployment, plannedDeployment, type RunningProcess } from '@devplat/test/services';
import { eventually } from '@devplat/test/webhook-receiver';
import pg from 'pg';
import { parse } from 'yaml';
import { awaitImageBuild, buildEnv, type ImageBuild, imageTag } from '../runner/image-build.ts';

const podman = '/usr/bin/podman';
const tag = imageTag;
const redisUrl = process.env.REDIS_URL?.trim() || null;
const skip = realPostgresUrl && redisUrl ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';
const podmanEnv = buildEnv();
// Every container of this run is named with it: two runs on one machine never touch each other's.
const suffix = randomBytes(4).toString('hex');
const minutes = (n: number) => n * 60_000;
const MB = 1_000_000;
/** What the platform's own layers, everything above the base, may weigh. */
const appBudget = 120 * MB;
/** Packages a running service never uses, by their directory names in node_modules/.pnpm: the
 * Prisma CLI and what it brings (studio, react, mysql2, its dev server), the dev tools. */
const notShipped = [
  'prisma',
  '@prisma+studio-core',
  '@prisma+dev',
  '@prisma+engines',
  'react',
  'react-dom',
  'mysql2',
  'typescript',
  'esbuild',
  '@biomejs+biome',
  '@redocly+cli',
];

function run(command: string, args: string[], timeout = 120_000): SpawnSyncReturns<string> {
  return spawnSync(command, args, { cwd: repoRoot, env: podmanEnv, encoding: 'utf8', timeout });
}

/** The base the Containerfile names (its ARG NODE_IMAGE), as build.sh reads it. */
function baseImage(): string {
  const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(
    readFileSync(join(repoRoot, 'infra/container/Containerfile'), 'utf8'),
  )?.[1];
  assert.ok(image, 'the Containerfile names its base in ARG NODE_IMAGE');
  return image;
}

function podmanOk(args: string[], timeout?: number): string {
  const result = run(podman, args, timeout);
  assert.equal(result.status, 0, `podman ${args[0]} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/**
 * Run inside the image (its source is passed to node -e): walks the imports of every entry point
 * of service.mjs through the platform's own files and lists those that do not resolve.
 */
async function unresolvedImports(): Promise<{ modules: number; missing: string[] }> {
  const { existsSync, readFileSync } = await import('node:fs');
  const service = 'file:///app/infra/container/service.mjs';
  const entries = [...readFileSync(new URL(service), 'utf8').matchAll(/'([\w/.-]+\.ts)'/g)];
  const imports =
    /^\s*(?:import|export)\s+(?!type\s)(?:[^'"`;]*?\sfrom\s*)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;
  const queue = [service, ...entries.map((entry) => `file:///app/${entry[1]}`)];
  const seen = new Set<string>();
  const missing: string[] = [];
  for (let url = queue.pop(); url !== undefined; url = queue.pop()) {
    if (seen.has(url)) continue;
    seen.add(url);
    for (const match of readFileSync(new URL(url), 'utf8').matchAll(imports)) {
      const specifier = (match[1] ?? match[2]) as string;
      const where = `${url.slice('file://'.length)}: ${specifier}`;
      try {
        // Throws for a package that is not there; a file that is not there it still names.
        const resolved = import.meta.resolve(specifier, url);
        if (!resolved.startsWith('file:')) continue; // node:…
        if (!existsSync(new URL(resolved))) missing.push(`${where} (no ${resolved.slice('file://'.length)})`);
        else if (resolved.startsWith('file:///app/') && !resolved.includes('/node_modules/')) queue.push(resolved);
      } catch (error) {
        missing.push(`${where} (${(error as { code?: string }).code})`);
      }
    }
  }
  return { modules: seen.size, missing };
}

describe('the container image', { skip }, () => {
  let scratch: string;
  let envFile: string;
  let deployment: Deployment;
  let databaseName: string;
  /** What build.sh said (its [stand-in] and [image] lines) and how long it took, for the output. */
  const built = { lines: [] as string[], seconds: 0 };
  const containers: string[] = [];
  const ports = {
    auth: 0,
    playerClient: 0,
    internal: 0,
    authManagement: 0,
    api: 0,
    apiManagement: 0,
    consoleManagement: 0,
  };

  /** As a platform team runs the image: host network here, read-only, uid 1000, nothing privileged. */
  const hardened = () => [
    '--network',
    'host',
    '--read-only',
    '--cap-drop=ALL',
    '--user',
    '1000:1000',
    '--security-opt',
    'no-new-privileges',
    '--env-file',
    envFile,
  ];

  /** Starts `command` in the image, detached, read-only, unprivileged; resolves with its name. */
  function start(command: string, env: Record<string, number>) {
    const name = `devplat-${command}-${suffix}`;
    const settings = Object.entries(env).flatMap(([key, value]) => ['--env', `${key}=${value}`]);
    podmanOk(['run', '--detach', '--name', name, ...hardened(), ...settings, tag, command]);
    containers.push(name);
    return name;
  }

  async function buildHere(): Promise<ImageBuild> {
    const started = Date.now();
    const result = await promisify(execFile)('infra/container/build.sh', [tag], {
      cwd: repoRoot,
      env: buildEnv(),
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
      timeout: minutes(15),
    }).then(
      ({ stderr }) => ({ code: 0, stderr }),
      (error: { code?: unknown; stderr?: string }) => ({
        code: typeof error.code === 'number' ? error.code : 1,
        stderr: error.stderr ?? String(error),
      }),
    );
    return { ...result, seconds: Math.round((Date.now() - started) / 1000) };
  }

  const ready = (port: number) =>
    eventually(async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200, 60_000);

  // A fresh machine makes the stand-in base first (about 80 s), then the image (about 30 s).
  before(
    async () => {
      assert.ok(
        existsSync(podman),
        'podman is not installed: .ci/run installs it (apt-get install podman buildah runc debootstrap nginx)',
      );
      // Started by test/run.mjs as the run began (test/runner/image-build.ts), or built here.
      const early = process.env.DEVPLAT_IMAGE_BUILD;
      const build = early ? await awaitImageBuild(early, minutes(15)) : await buildHere();
      assert.equal(build.code, 0, `build.sh failed (${build.code}):\n${build.stderr.slice(-4000)}`);
      built.seconds = build.seconds;
      built.lines = build.stderr.split('\n').filter((line) => /^\[(stand-in|image)\]/.test(line));

      // An empty database of the test's own: the image's `migrate` makes its schema.
      databaseName = `devplat_image_${suffix}`;
      const admin = new pg.Client({ connectionString: realPostgresUrl as string });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${databaseName}`);
      await admin.end();
      const databaseUrl = new URL(realPostgresUrl as string);
      databaseUrl.pathname = `/${databaseName}`;
      for (const key of Object.keys(ports) as (keyof typeof ports)[]) ports[key] = await freePort();
      deployment = await plannedDeployment({ DATABASE_URL: databaseUrl.href, REDIS_URL: redisUrl as string });
      const base = new URL(deployment.base);
      deployment.base = `http://127.0.0.1:${ports.api}${base.pathname}`;
      deployment.internal = `http://127.0.0.1:${ports.internal}`;
      deployment.playerClient = `http://127.0.0.2:${ports.playerClient}`;
      const names = ['DATABASE_URL', 'REDIS_URL', 'REDIS_KEY_PREFIX', 'SIGNING_KEYS', 'PAIRWISE_SECRET', 'COOKIE_KEYS'];
      const settings: Record<string, string> = {
        ...Object.fromEntries(names.map((name) => [name, deployment.env[name] as string])),
        BASE_URL: deployment.base,
        PLAYER_CLIENT_URL: deployment.playerClient,
        AUTH_INTERNAL_URL: deployment.internal,
        CONSOLE_URL: deployment.env.CONSOLE_URL as string,
        LOG_LEVEL: 'warn',
        SHUTDOWN_DELAY_MS: '0',
        // The image binds 0.0.0.0 (fit behind a container's own network). On the host's network the
        // listeners stay on their URLs' loopback addresses, never on the machine's other addresses:
        // HOST cleared, not 127.0.0.1, as auth's player client has a loopback address of its own.
        HOST: '',
      };
      scratch = mkdtempSync(join(tmpdir(), 'devplat-image-'));
      envFile = join(scratch, 'platform.env');
      writeFileSync(
        envFile,
        Object.entries(settings)
          .map(([key, value]) => `${key}=${value}\n`)
          .join(''),
        { mode: 0o600 },
      );
    },
    { timeout: minutes(20) },
  );

  after(async () => {
    if (containers.length) run(podman, ['rm', '--force', '--time', '0', ...containers]);
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    if (databaseName) {
      const admin = new pg.Client({ connectionString: realPostgresUrl as string });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS ${databaseName} WITH (FORCE)`);
      await admin.end();
    }
  });

  test('the image is its base plus at most 120 MB, runs as the unprivileged node user, and `help` lists its commands', (t) => {
    const base = baseImage();
    const standIn = podmanOk(['image', 'inspect', '--format', '{{.Comment}}', base]).includes('local stand-in');
    t.diagnostic(
      standIn
        ? `base ${base}: a LOCAL STAND-IN made by infra/container/stand-in-base.sh, not the official image`
        : `base ${base}: the official image`,
    );
    for (const line of built.lines) t.diagnostic(`build.sh: ${line}`);
    // The image's layers are the base's, unchanged, then the platform's own: its size less the
    // base's is what the platform adds.
    const layers = (image: string) =>
      JSON.parse(podmanOk(['image', 'inspect', '--format', '{{json .RootFS.Layers}}', image])) as string[];
    const baseLayers = layers(base);
    assert.deepEqual(layers(tag).slice(0, baseLayers.length), baseLayers, 'the image is built on the base unchanged');
    const size = (image: string) => Number(podmanOk(['image', 'inspect', '--format', '{{.Size}}', image]));
    const app = size(tag) - size(base);
    const history = JSON.parse(podmanOk(['history', '--format', 'json', tag])) as { size: number; CreatedBy: string }[];
    for (const layer of history.filter((entry) => entry.size > 0).reverse()) {
      t.diagnostic(
        `layer ${(layer.size / MB).toFixed(1)} MB: ${layer.CreatedBy.replace('/bin/sh -c #(nop) ', '').slice(0, 60)}`,
      );
    }
    t.diagnostic(
      `image ${tag}: ${Math.round(size(tag) / MB)} MB = base ${Math.round(size(base) / MB)} MB + app ${Math.round(app / MB)} MB (budget ${appBudget / MB} MB), build.sh took ${built.seconds} s`,
    );
    assert.ok(app <= appBudget, `the platform's layers weigh ${Math.round(app / MB)} MB, over ${appBudget / MB} MB`);
    assert.equal(podmanOk(['image', 'inspect', '--format', '{{.Config.User}}', tag]), 'node');
    const help = podmanOk(['run', '--rm', '--network', 'host', tag, 'help']);
    assert.match(help, /commands: auth, api, console, worker, mock, migrate, janitor, admin/);
  });

  test('it carries no Prisma CLI, studio, react, mysql2 or dev tools; every command finds what it imports', () => {
    const installed = podmanOk(['run', '--rm', '--entrypoint', 'ls', tag, '/app/node_modules/.pnpm']).split('\n');
    const name = (directory: string) => /^@?[^@]+/.exec(directory)?.[0]; // prisma@7.10.1_… → prisma
    const found = installed.filter((directory) => notShipped.includes(name(directory) ?? ''));
    assert.deepEqual(found, [], 'packages no running service uses');
    assert.ok(
      installed.some((directory) => name(directory) === '@prisma+client'),
      'the listing is of the real store',
    );

    // Every module the commands of infra/container/service.mjs load, statically or by a literal
    // import(), from the entry points through the platform's own sources, resolves in the image (a
    // package pnpm left out, or a file taken out of @prisma/client, would not).
    const result = JSON.parse(
      podmanOk([
        'run',
        '--rm',
        '--entrypoint',
        'node',
        tag,
        '--experimental-import-meta-resolve',
        '--input-type=module',
        '-e',
        `console.log(JSON.stringify(await (${unresolvedImports})()))`,
      ]),
    ) as Awaited<ReturnType<typeof unresolvedImports>>;
    assert.deepEqual(result.missing, []);
    assert.ok(result.modules > 100, `only ${result.modules} modules walked`);
  });

  test('its schema engine is the build infra/toolchain/versions.json records, for the Prisma it names', async () => {
    const { schemaEngine } = JSON.parse(readFileSync(join(repoRoot, 'infra/toolchain/versions.json'), 'utf8')) as {
      schemaEngine: { package: string; pinned: string; prisma: string; prismaEngines: string };
    };
    const shipped = JSON.parse(
      podmanOk([
        'run',
        '--rm',
        '--entrypoint',
        'cat',
        tag,
        `/app/packages/2-infrastructure/db/node_modules/${schemaEngine.package}/package.json`,
      ]),
    ) as { version: string };
    assert.equal(shipped.version, schemaEngine.pinned, 'the image runs migrations on the recorded schema engine');
    // The note beside the pin is about this Prisma release: a new one means looking again for a
    // schema engine built with its engines.
    const lock = parse(readFileSync(join(repoRoot, 'pnpm-lock.yaml'), 'utf8')) as {
      importers: Record<string, Record<string, Record<string, { version: string }>>>;
      snapshots: Record<string, { dependencies?: Record<string, string> }>;
    };
    const db = lock.importers['packages/2-infrastructure/db'];
    const prisma = (db?.dependencies?.prisma ?? db?.devDependencies?.prisma)?.version.split('(')[0];
    assert.equal(prisma, schemaEngine.prisma, 'the Prisma CLI packages/2-infrastructure/db installs');
    const engines = lock.snapshots[`@prisma/engines@${prisma}`]?.dependencies?.['@prisma/engines-version'];
    assert.equal(engines, schemaEngine.prismaEngines, `the engines version of Prisma ${prisma}`);
    assert.equal(
      schemaEngine.pinned,
      schemaEngine.prismaEngines,
      "the schema engine is the Prisma release's own build",
    );
  });

  test('migrate in the image makes the schema; auth and api answer /readyz read-only as uid 1000, node as PID 1', {
    timeout: minutes(3),
  }, async () => {
    const migrate = run(podman, ['run', '--rm', ...hardened(), tag, 'migrate']);
    assert.equal(migrate.status, 0, migrate.stderr);
    assert.match(migrate.stdout, /^applied \d+_init/);

    const auth = start('auth', {
      PORT: ports.auth,
      PLAYER_CLIENT_PORT: ports.playerClient,
      AUTH_INTERNAL_PORT: ports.internal,
      MANAGEMENT_PORT: ports.authManagement,
    });
    await ready(ports.authManagement);
    const api = start('api', { PORT: ports.api, MANAGEMENT_PORT: ports.apiManagement });
    await ready(ports.apiManagement);
    for (const name of [auth, api]) {
      assert.equal(podmanOk(['inspect', '--format', '{{.Config.User}}', name]), '1000:1000');
      assert.equal(podmanOk(['exec', name, 'id', '-u']), '1000');
      assert.match(
        podmanOk(['exec', name, 'cat', '/proc/1/cmdline']).replaceAll('\0', ' '),
        /^node \/app\/infra\/container\/service\.mjs (auth|api)/,
      );
      const write = run(podman, ['exec', name, 'node', '-e', "require('fs').writeFileSync('/app/x', 'x')"]);
      assert.notEqual(write.status, 0, 'the root file system is read-only');
    }
    // On the host's network nothing of theirs answers on the machine's other addresses.
    const outside = Object.values(networkInterfaces())
      .flat()
      .find((address) => address?.family === 'IPv4' && !address.internal)?.address;
    for (const port of outside ? [ports.authManagement, ports.apiManagement, ports.auth, ports.api] : []) {
      const answer = await fetch(`http://${outside}:${port}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(
        (error: Error) => error,
      );
      assert.ok(answer instanceof Error, `port ${port} answers on ${outside}`);
    }
  });

  test('a client-credentials token, /cities, and the code flow to /me, through the containers', {
    timeout: minutes(2),
  }, async () => {
    const database = await openDatabase({
      databaseUrl: deployment.env.DATABASE_URL as string,
      pgliteDir: null,
      poolSize: 2,
    });
    try {
      await applyMigrations(database.adapter); // a no-op: the image's migrate did it
      await seedRegistry(database.prisma);
      const app = await createTestApp(database.prisma, { scopes: ['city.public.read', 'profile.basic.read'] });
      const player = await createPlayer(database.prisma, app.developer.id);
      const auth = { origin: `http://127.0.0.1:${ports.auth}` } as RunningProcess;
      const as = replicaServer(deployment, auth, deployment.playerClient);
      const token = await clientCredentialsToken(as, app.clientId, app.clientSecret);
      const cities = await bearer(deployment.base, '/cities?limit=100', token);
      assert.equal(cities.status, 200);
      assert.ok(((await cities.json()) as { data: unknown[] }).data.length > 0);
      const userAccess = await userToken(as, app, player);
      const me = await bearer(deployment.base, '/me', userAccess);
      assert.equal(me.status, 200);
      assert.match(((await me.json()) as { sub: string }).sub, /^ps_/);
    } finally {
      await database.close();
    }
  });

  test('the console in the image serves the docs and the CLI built into it', { timeout: minutes(2) }, async () => {
    const consoleUrl = deployment.env.CONSOLE_URL as string;
    start('console', { MANAGEMENT_PORT: ports.consoleManagement });
    await ready(ports.consoleManagement);
    const index = await fetch(`${consoleUrl}/docs/`);
    assert.equal(index.status, 200);
    assert.match(await index.text(), /Developer Platform API 1\.1\.0/);
    const reference = await fetch(`${consoleUrl}/docs/api-1.1.0.html`);
    assert.equal(reference.status, 200);
    assert.match(reference.headers.get('content-security-policy') ?? '', /script-src 'sha256-/);
    assert.match(await reference.text(), /Redoc/);
    const cli = await fetch(`${consoleUrl}/downloads/devplat.tgz`, { method: 'HEAD' });
    assert.equal(cli.status, 200, 'the CLI tarball packed into the image');
    assert.equal(cli.headers.get('content-type'), 'application/gzip');
  });

  test('podman stop drains each service to exit 0', { timeout: minutes(3) }, () => {
    for (const name of [...containers].reverse()) {
      podmanOk(['stop', '--time', '30', name], 60_000);
      assert.equal(podmanOk(['inspect', '--format', '{{.State.ExitCode}}', name]), '0', `${name} exited 0`);
    }
  });
});
