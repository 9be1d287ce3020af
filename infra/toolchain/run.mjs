#!/usr/bin/env node
// Runs a task of the project on its own toolchain, installing the toolchain and the dependencies
// first where they are missing or stale. The machines ship an older Node; the platform needs
// Node 24 LTS and pnpm, which the npm registry carries as packages. This file therefore runs on
// any Node >= 18 and uses only npm. Every script in package.json comes through here, so
// `npm start`, `npm test` and `npm run <task>` work on a fresh machine.
//
//   node infra/toolchain/run.mjs <task> [args...]
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const toolchain = join(root, '.toolchain');
const versions = JSON.parse(readFileSync(join(root, 'infra/toolchain/versions.json'), 'utf8'));
const bin = join(toolchain, 'node_modules/.bin');

function run(cmd, args, options = {}) {
  const result = spawnSync(cmd, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  return result.status ?? 1;
}

function say(line) {
  process.stderr.write(`[toolchain] ${line}\n`);
}

function installedNodeVersion() {
  const node = join(bin, 'node');
  if (!existsSync(node)) return null;
  const out = spawnSync(node, ['--version'], { encoding: 'utf8' });
  return out.status === 0 ? out.stdout.trim().replace(/^v/, '') : null;
}

function ensureToolchain() {
  const pnpmVersion = existsSync(join(bin, 'pnpm'))
    ? spawnSync(join(bin, 'pnpm'), ['--version'], { encoding: 'utf8' }).stdout?.trim()
    : null;
  if (installedNodeVersion() === versions.node && pnpmVersion === versions.pnpm) return;
  say(`installing Node ${versions.node} and pnpm ${versions.pnpm} into .toolchain/`);
  mkdirSync(toolchain, { recursive: true });
  writeFileSync(
    join(toolchain, 'package.json'),
    `${JSON.stringify({ private: true, dependencies: { node: versions.node, pnpm: versions.pnpm } }, null, 2)}\n`,
  );
  const status = run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--no-package-lock', '--loglevel=error', '--prefix', toolchain],
    { cwd: toolchain },
  );
  if (status !== 0 || installedNodeVersion() !== versions.node) {
    say('could not install the toolchain from the npm registry');
    process.exit(1);
  }
}

// Installs the workspace's dependencies when the lockfile changed since the last install.
function ensureDependencies(env) {
  const lock = readFileSync(join(root, 'pnpm-lock.yaml'));
  const stampFile = join(root, 'node_modules/.lock-stamp');
  const stamp = createHash('sha256').update(lock).update(versions.node).digest('hex');
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp) return;
  say('installing dependencies (pnpm install --frozen-lockfile)');
  const status = run(join(bin, 'pnpm'), ['install', '--frozen-lockfile', '--reporter=append-only'], {
    cwd: root,
    env,
  });
  if (status !== 0) process.exit(status);
  writeFileSync(stampFile, stamp);
}

// The console serves the docs (docs/build.ts) from DATA_DIR/docs: built before a task that starts
// it, when missing or older than their sources.
function ensureDocs(env) {
  const out = resolve(root, env.DATA_DIR || '.data', 'docs');
  const built = join(out, 'index.html');
  // What the pages are made of, and what makes them (a new docs home comes with build.ts).
  const sources = [
    join(root, 'docs/build.ts'),
    ...['packages/1-foundation/contract/openapi', 'docs/guides'].flatMap((dir) =>
      readdirSync(join(root, dir)).map((name) => join(root, dir, name)),
    ),
  ];
  const builtAt = existsSync(built) ? statSync(built).mtimeMs : 0;
  if (sources.every((source) => statSync(source).mtimeMs < builtAt)) return;
  say('building the docs the console serves at /docs (npm run docs:build)');
  const status = run(join(bin, 'node'), ['docs/build.ts', out], { cwd: root, env, stdio: ['ignore', 2, 2] });
  if (status !== 0) say('the docs could not be built: /docs will say so');
}

// The console serves the devplat CLI's package (cli/scripts/pack.ts) from DATA_DIR/cli at
// /downloads: packed before a task that starts it, when missing or older than what it bundles.
function ensureCliPackage(env) {
  const out = resolve(root, env.DATA_DIR || '.data', 'cli');
  const packed = existsSync(out) ? readdirSync(out).filter((name) => /^devplat-.+\.tgz$/.test(name)) : [];
  const packedAt = Math.max(0, ...packed.map((name) => statSync(join(out, name)).mtimeMs));
  // The CLI, the workspace code it imports, and the lockfile (the versions of its dependencies).
  const sources = [
    'cli/src',
    'cli/scripts',
    'packages/1-foundation/command-line/src',
    'packages/1-foundation/contract/src',
    'packages/2-infrastructure/http/src',
  ]
    .flatMap((dir) => filesUnder(join(root, dir)))
    .concat(join(root, 'pnpm-lock.yaml'));
  if (sources.every((source) => statSync(source).mtimeMs < packedAt)) return;
  say('packing the devplat CLI the console serves at /downloads (npm run cli:pack)');
  const status = run(join(bin, 'node'), ['cli/scripts/pack.ts', out], {
    cwd: root,
    env,
    stdio: ['ignore', 2, 2],
  });
  if (status !== 0) say('the CLI could not be packed: /downloads will say so');
}

function filesUnder(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  );
}

const tasks = {
  start: ['node', 'services/platform/src/main.ts'],
  test: ['node', 'test/run.mjs'],
  // The fast loop on the contract: its tests (test/contract) and the packages' own, at the
  // listeners, without the lint, type and contract checks `test` runs first.
  'test:contract': [
    'node',
    'test/run.mjs',
    '--no-checks',
    'test/contract/**/*.test.ts',
    'packages/*/*/test/**/*.test.ts',
    'cli/test/**/*.test.ts',
  ],
  'api:start': ['node', 'services/api/src/main.ts'],
  'auth:start': ['node', 'services/auth/src/main.ts'],
  'mock:start': ['node', 'services/mock/src/main.ts'],
  'console:start': ['node', 'services/console/src/main.ts'],
  'worker:start': ['node', 'services/worker/src/main.ts'],
  devplat: ['node', 'cli/src/main.ts'],
  'cli:pack': ['node', 'cli/scripts/pack.ts'],
  'docs:build': ['node', 'docs/build.ts'],
  sample: ['node', 'examples/sample-app/src/main.ts'],
  admin: ['node', 'services/admin/src/main.ts'],
  'admin:serve': ['node', 'services/admin/src/serve.ts'],
  'db:migrate': ['node', 'packages/2-infrastructure/db/scripts/migrate.ts'],
  'db:seed': ['node', 'packages/3-domain/domain/scripts/seed-registry.ts'],
  'db:migration:new': ['node', 'packages/2-infrastructure/db/scripts/new-migration.ts'],
  'db:migrations:check': ['node', 'packages/2-infrastructure/db/scripts/check-migrations.ts'],
  'bench:token': ['node', 'bench/run.ts', 'token'],
  'bench:api': ['node', 'bench/run.ts', 'api'],
  'bench:refresh': ['node', 'bench/run.ts', 'refresh'],
  'bench:code': ['node', 'bench/run.ts', 'code'],
  'bench:topology': ['node', 'bench/run.ts', 'topology'],
  'bench:revoke': ['node', 'bench/run.ts', 'revoke'],
  'bench:scale': ['node', 'bench/run.ts', 'scale'],
  'bench:costs': ['node', 'bench/run.ts', 'costs'],
  capacity: ['node', 'bench/capacity.ts'],
  'bench:lists': ['node', 'bench/lists.ts'],
  'bench:console': ['node', 'bench/run.ts', 'console'],
  soak: ['node', 'bench/soak.ts'],
  'seed:scale': ['node', 'bench/seed-scale.ts'],
  topology: ['node', 'infra/topology/src/main.ts'],
  format: ['node_modules/.bin/biome', 'check', '--write', '.'],
};

const [task, ...args] = process.argv.slice(2);
if (!(task in tasks)) {
  say(`usage: node infra/toolchain/run.mjs <task> [args...], task one of: ${Object.keys(tasks).join(', ')}`);
  process.exit(2);
}
ensureToolchain();
const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, npm_config_nodedir: '' };
ensureDependencies(env);
if (task === 'start' || task === 'console:start') {
  ensureDocs(env);
  ensureCliPackage(env);
}
// The task decides how to stop: a signal sent to this wrapper alone (a supervisor's SIGTERM) is
// passed on to it, and this process exits with the task's own code once it has stopped.
const [command, ...fixed] = tasks[task];
const child = spawn(command === 'node' ? join(bin, 'node') : join(root, command), [...fixed, ...args], {
  cwd: root,
  env,
  stdio: 'inherit',
});
// Ctrl-C reaches the whole foreground process group, the task included, so SIGINT is not passed on
// (the task would get it twice); SIGTERM and SIGHUP come to this process alone.
process.on('SIGINT', () => {});
for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal));
child.once('error', (error) => {
  say(`could not run ${task}: ${error.message}`);
  process.exit(1);
});
child.once('exit', (code, signal) => {
  process.exit(code ?? 128 + (constants.signals[signal] ?? 0));
});
