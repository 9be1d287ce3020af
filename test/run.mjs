// The test command (npm test → pnpm test:all): lint, typecheck and contract lint, then every test
// file with node's test runner, then (in CI, or locally with --doors) the contract tests again
// through the nginx gateway. Ends with the line "N passed, N failed, N skipped" over both passes (a
// failed lint check counts as a failure; under CI=true, so does a skip that is not on the list of
// expected skips, test/expected-skips.ts). Tests use DATABASE_URL / REDIS_URL when set, the
// embedded defaults otherwise.
//
//   node test/run.mjs                          every test file; CI=true adds the gateway pass
//   node test/run.mjs --doors                  the same with the gateway pass, outside CI too
//   node test/run.mjs [--door gateway] FILE…   only these files, through that door (direct by default)
//   node test/run.mjs --no-checks …            the same without the lint, type and contract checks
//
// The fast contract loop, npm run test:contract, is `--no-checks` on test/contract and the
// packages' own tests (infra/toolchain/run.mjs).
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expectedSkips } from './expected-skips.ts';
import { startImageBuild } from './runner/image-build.ts';
import {
  defaultPatterns,
  fileLines,
  gatewayPassFiles,
  repoRoot as root,
  runTestFiles,
  unexpectedSkips,
} from './runner/run-files.ts';

const doors = ['direct', 'gateway'];

const usage = 'usage: node test/run.mjs [--no-checks] [--doors | --door direct|gateway] [test files…]';
const files = [];
let door = null;
let bothDoors = false;
let runChecks = true;
const args = process.argv.slice(2);
for (let index = 0; index < args.length; index++) {
  const arg = args[index];
  if (arg === '--doors') bothDoors = true;
  else if (arg === '--no-checks') runChecks = false;
  else if (arg === '--door' || arg.startsWith('--door=')) {
    door = arg === '--door' ? args[++index] : arg.slice('--door='.length);
    if (!doors.includes(door)) {
      process.stderr.write(`${usage}\n--door is one of ${doors.join(', ')}\n`);
      process.exit(2);
    }
  } else if (arg.startsWith('--')) {
    process.stderr.write(`${usage}\n`);
    process.exit(2);
  } else files.push(arg);
}
const contractFiles = gatewayPassFiles();
const passes = files.length
  ? (bothDoors ? doors : [door ?? 'direct']).map((name) => ({ door: name, patterns: files }))
  : door === 'gateway'
    ? [{ door: 'gateway', patterns: contractFiles }]
    : [
        { door: 'direct', patterns: defaultPatterns },
        ...(bothDoors || process.env.CI === 'true' ? [{ door: 'gateway', patterns: contractFiles }] : []),
      ];

const bin = (name) => join(root, 'node_modules/.bin', name);
const env = {
  ...process.env,
  REDOCLY_TELEMETRY: 'off',
  REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
  // Node's compile cache for every process of the run (test files, the services and commands they
  // start): the TypeScript each one strips and compiles is kept on disk, keyed by its content, and
  // a process that loads the same file again starts in about half the time. Nothing changes but
  // the start-up (NODE_DISABLE_COMPILE_CACHE=1 turns it off).
  NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE ?? join(tmpdir(), 'node-compile-cache'),
};

const checks = [
  ['biome (lint and format)', bin('biome'), ['check', '.']],
  ['tsc (types)', bin('tsc'), ['-p', 'tsconfig.json']],
  ['redocly (contract documents)', bin('redocly'), ['lint', '--config', 'packages/1-foundation/contract/redocly.yaml']],
  // The console API's document, under the same rules (it is not one of the contract's apis).
  [
    'redocly (console API document)',
    bin('redocly'),
    [
      'lint',
      '--config',
      'packages/1-foundation/contract/redocly.yaml',
      'packages/1-foundation/contract/openapi/console-api-1.0.0.yaml',
    ],
  ],
  // The admin API's document, likewise (served on the admin listener only).
  [
    'redocly (admin API document)',
    bin('redocly'),
    [
      'lint',
      '--config',
      'packages/1-foundation/contract/redocly.yaml',
      'packages/1-foundation/contract/openapi/admin-api-1.0.0.yaml',
    ],
  ],
  // The expand/contract migration policy (docs/releasing.md): no migration the previous release
  // cannot run beside, or that the migrate path cannot apply.
  [
    'migrations (expand/contract policy)',
    process.execPath,
    ['packages/2-infrastructure/db/scripts/check-migrations.ts'],
  ],
];
// The container image's build starts now, beside the checks and the first test files, where the
// file that runs the image is in the run and can run it (podman, real stores); that file waits for
// it (test/runner/image-build.ts).
const imageFile = 'test/infra/container-image.test.ts';
const runsImage =
  passes.some(({ patterns }) => patterns === defaultPatterns || patterns.includes(imageFile)) &&
  existsSync('/usr/bin/podman') &&
  process.env.DATABASE_URL &&
  process.env.REDIS_URL;
if (runsImage) env.DEVPLAT_IMAGE_BUILD = startImageBuild();

let failedChecks = 0;
for (const [name, command, args] of runChecks ? checks : []) {
  process.stdout.write(`\n▶ ${name}\n`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env });
  if (result.status !== 0) {
    failedChecks += 1;
    process.stdout.write(`✖ ${name} failed\n`);
  }
}

// The browser tests drive Debian's Chromium; a fresh machine gets it here (as root) or says why not.
if (!existsSync('/usr/bin/chromium') && !process.env.CHROMIUM_PATH) {
  process.stdout.write('\n▶ installing Chromium (apt-get install chromium) for the browser tests\n');
  const apt = { stdio: 'inherit', env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } };
  const ok =
    spawnSync('apt-get', ['update', '-qq'], apt).status === 0 &&
    spawnSync('apt-get', ['install', '-y', '-qq', 'chromium'], apt).status === 0;
  if (!ok)
    process.stdout.write(
      '✖ could not install Chromium: the browser tests will fail (set CHROMIUM_PATH to a Chromium binary)\n',
    );
}

// Every test database on PostgreSQL is a copy of one template, migrated and seeded once
// (test/support/database-template.ts): made here, before any test file starts.
if (process.env.DATABASE_URL?.trim()) {
  const made = spawnSync(process.execPath, ['test/runner/database-templates.ts'], { cwd: root, stdio: 'inherit', env });
  if (made.status !== 0)
    process.stdout.write("✖ the test databases' template could not be made: each file tries again\n");
}

const stores =
  `${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}` +
  ` and ${process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'the in-memory store'}`;
const inCi = process.env.CI === 'true';
const skipLine = (skip) =>
  `${skip.file ? relative(root, skip.file) : '(no file)'} › ${skip.name}${skip.reason ? ` (${skip.reason})` : ''}`;
const duration = (ms) => {
  const seconds = Math.round(ms / 1000);
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
};
const results = [];
for (const pass of passes.filter(({ patterns }) => patterns.length)) {
  const through = pass.door === 'gateway' ? 'through the nginx gateway' : 'at the listeners';
  process.stdout.write(`\n▶ ${pass.door}: tests on ${stores}, ${through} (DEVPLAT_TEST_DOOR=${pass.door})\n`);
  const result = runTestFiles(pass.patterns, { env: { ...env, DEVPLAT_TEST_DOOR: pass.door } });
  for (const line of fileLines(result)) process.stdout.write(`${line}\n`);
  if (result.slowest.length) {
    const slowest = result.slowest.map(({ file, ms }) => `${duration(ms)} ${relative(root, file)}`);
    process.stdout.write(`slowest files: ${slowest.join(', ')}\n`);
  }
  // Under CI a skip nobody expected is a failure: a missing tool must not turn a test off unseen.
  const unexpected = inCi ? unexpectedSkips(result.skipped, expectedSkips, pass.door) : [];
  for (const skip of result.skipped) {
    const mark = unexpected.includes(skip) ? '✖ skipped, not on test/expected-skips.ts:' : '- skipped:';
    process.stdout.write(`${mark} ${skipLine(skip)}\n`);
  }
  results.push({ ...pass, ...result, failed: result.failed + unexpected.length });
}

const passed = results.reduce((sum, result) => sum + result.passed, 0);
const failed = results.reduce((sum, result) => sum + result.failed, failedChecks);
const skipped = results.reduce((sum, result) => sum + result.skipped.length, 0);
const perPass = results.map(
  (result) =>
    `${result.door}: ${result.passed} passed, ${result.failed} failed, ${result.skipped.length} skipped in ${duration(result.durationMs)}`,
);
// The failures again, last: a log read from its end (CI's) says which tests failed and why.
for (const result of results) {
  for (const failure of result.failures ?? []) {
    const where = failure.file ? `${relative(root, failure.file)} › ` : '';
    const error = failure.error.replace(/^/gm, '    ');
    process.stdout.write(`\n✖ ${result.door}: ${where}${failure.name}\n${error}\n`);
  }
}
process.stdout.write(
  `\n${failedChecks ? `${failedChecks} of ${checks.length} lint checks failed\n` : ''}` +
    `${perPass.join('; ')}\n${passed} passed, ${failed} failed, ${skipped} skipped\n`,
);
process.exit(failed > 0 ? 1 : 0);
