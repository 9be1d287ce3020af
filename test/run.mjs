// The test command (npm test → pnpm test:all): lint, typecheck and contract lint, then every test
// file with node's test runner. Ends with the line "N passed, N failed" (a failed lint check counts
// as a failure). Tests use DATABASE_URL / REDIS_URL when set, the embedded defaults otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules/.bin', name);
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };

const checks = [
  ['biome (lint and format)', bin('biome'), ['check', '.']],
  ['tsc (types)', bin('tsc'), ['-p', 'tsconfig.json']],
  ['redocly (contract documents)', bin('redocly'), ['lint', '--config', 'packages/contract/redocly.yaml']],
  // The console API's document, under the same rules (it is not one of the contract's apis).
  [
    'redocly (console API document)',
    bin('redocly'),
    ['lint', '--config', 'packages/contract/redocly.yaml', 'packages/contract/openapi/console-api-1.0.0.yaml'],
  ],
];
let failedChecks = 0;
for (const [name, command, args] of checks) {
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

const files = process.argv.slice(2);
const patterns = files.length
  ? files
  : ['packages/*/test/**/*.test.ts', 'services/*/test/**/*.test.ts', 'test/e2e/**/*.test.ts'];
const scratch = mkdtempSync(join(tmpdir(), 'devplat-test-'));
const summaryFile = join(scratch, 'summary');
process.stdout.write(
  `\n▶ tests on ${process.env.DATABASE_URL ? 'PostgreSQL (DATABASE_URL)' : 'embedded PGlite'}` +
    ` and ${process.env.REDIS_URL ? 'Redis (REDIS_URL)' : 'the in-memory store'}\n`,
);
const tests = spawnSync(
  process.execPath,
  [
    '--test',
    '--test-concurrency=2',
    '--test-timeout=180000',
    // A file whose tests have all finished ends even if something it started still runs: once, in
    // CI, a test file sat busy for minutes after its last test passed (not reproduced since).
    '--test-force-exit',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'test/summary-reporter.mjs')}`,
    `--test-reporter-destination=${summaryFile}`,
    ...patterns,
  ],
  { cwd: root, stdio: 'inherit', env },
);
let passed = 0;
let failed = 0;
try {
  [passed, failed] = JSON.parse(readFileSync(summaryFile, 'utf8'));
} catch {
  failed += 1; // the runner died before reporting
}
rmSync(scratch, { recursive: true, force: true });
process.stdout.write(
  `\n${failedChecks ? `${failedChecks} of ${checks.length} lint checks failed\n` : ''}` +
    `${passed} passed, ${failed + failedChecks} failed\n`,
);
process.exit(failed + failedChecks > 0 || tests.status !== 0 ? 1 : 0);
