// How test/run.mjs runs test files: node's test runner with its flags, the spec reporter on stdout
// and test/summary-reporter.mjs's count. Its own test runs it on fixture files the same way.
import { spawnSync } from 'node:child_process';
import { globSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export const repoRoot = new URL('../..', import.meta.url).pathname;

/** Folders of test/ that hold no area: shared code, the runner itself (run on its own), the interop harness. */
const notAreas = ['support', 'runner', 'interop', 'node_modules'];

/**
 * The areas of test/, each a folder of test files (the contract's operations and refusals, the
 * player client, the console, webhooks, operating, Redis, the infrastructure, the docs): every
 * folder there but those above, so a new one runs without being named anywhere.
 */
export const testAreas = readdirSync(join(repoRoot, 'test'), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !notAreas.includes(entry.name))
  .map((entry) => entry.name)
  .sort();

/** Every test file of the project, and nothing else (the fixtures here end in .fixture.ts). */
export const defaultPatterns = [
  'packages/*/*/test/**/*.test.ts',
  'cli/test/**/*.test.ts',
  'services/*/test/**/*.test.ts',
  ...testAreas.map((area) => `test/${area}/**/*.test.ts`),
  'bench/**/*.test.ts',
  'test/runner/**/*.test.ts',
];

/**
 * The files of the gateway pass: the contract's tests (test/contract), which reach the platform
 * through the door DEVPLAT_TEST_DOOR names (startTestPlatform, test/support/platform.ts). Found,
 * not listed; the runner's test checks that each one does use the door.
 */
export function gatewayPassFiles(): string[] {
  return globSync('test/contract/**/*.test.ts', { cwd: repoRoot }).sort();
}

/** Whether a test file reaches the platform through the door its pass names. */
export const usesTheDoor = (file: string) => /\bstartTestPlatform\(/.test(readFileSync(join(repoRoot, file), 'utf8'));

/** A skipped test, todo or suite: its file, its name and the reason it gave. */
export interface Skip {
  file: string | null;
  name: string;
  reason: string;
}

/** A skip the project expects in CI, and why (test/expected-skips.ts). */
export interface ExpectedSkip {
  /** The test file, relative to the repository. */
  file: string;
  /** The test's (or suite's) own name, as it is reported. */
  name: string;
  /** The pass it is skipped in; both when absent. */
  door?: 'direct' | 'gateway';
  why: string;
}

/** The skips of a pass that are not on the list of expected ones. */
export function unexpectedSkips(skipped: Skip[], expected: ExpectedSkip[], door: 'direct' | 'gateway'): Skip[] {
  return skipped.filter(
    (skip) =>
      !expected.some(
        (entry) =>
          entry.name === skip.name &&
          skip.file !== null &&
          relative(repoRoot, skip.file) === entry.file &&
          (entry.door ?? door) === door,
      ),
  );
}

export interface FilesRun {
  passed: number;
  failed: number;
  /** Tests, todos and suites skipped (each counted once; a skipped suite's tests are never reported). */
  skipped: Skip[];
  /** Files whose process ended before it reached its end, with how many tests each had reported. */
  unfinished: { file: string; reported: number }[];
  /** Files the linger guard ended after their last test: something they started was left open. */
  lingered: string[];
  /** Each failed test, with the first lines of its error. */
  failures: { file: string | null; name: string; error: string }[];
  /** The files whose top-level tests took longest, slowest first (at most ten). */
  slowest: { file: string; ms: number }[];
  durationMs: number;
  /** The spec reporter's output and the runner's stderr when `output: 'capture'`, else ''. */
  output: string;
}

export interface RunOptions {
  env?: NodeJS.ProcessEnv;
  /** --test-timeout: a test, hook or suite that has not ended by then fails. */
  testTimeoutMs?: number;
  /** A file whose process still runs this long after its last test is ended (linger-guard.mjs). */
  lingerMs?: number;
  output?: 'inherit' | 'capture';
}

export function runTestFiles(
  patterns: string[],
  { env = process.env, testTimeoutMs = 180_000, lingerMs = 60_000, output = 'inherit' }: RunOptions = {},
): FilesRun {
  const childEnv: NodeJS.ProcessEnv = { ...env, DEVPLAT_TEST_LINGER_MS: String(lingerMs) };
  delete childEnv.NODE_TEST_CONTEXT; // set in a test file, where it would make the runner skip every file
  const scratch = mkdtempSync(join(tmpdir(), 'devplat-test-'));
  const summaryFile = join(scratch, 'summary');
  const started = performance.now();
  const run = spawnSync(
    process.execPath,
    [
      `--import=${join(repoRoot, 'test/runner/linger-guard.mjs')}`,
      '--test',
      '--test-concurrency=2',
      `--test-timeout=${testTimeoutMs}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(repoRoot, 'test/summary-reporter.mjs')}`,
      `--test-reporter-destination=${summaryFile}`,
      ...patterns,
    ],
    {
      cwd: repoRoot,
      env: childEnv,
      stdio: output === 'inherit' ? 'inherit' : 'pipe',
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  const durationMs = performance.now() - started;
  const captured = output === 'capture' ? `${run.stdout}${run.stderr}` : '';
  try {
    const summary = JSON.parse(readFileSync(summaryFile, 'utf8')) as Omit<FilesRun, 'durationMs' | 'output'>;
    // The runner exits non-zero on a failure the reporter saw too; otherwise something failed outside.
    const failed = summary.failed || (run.status === 0 ? 0 : 1);
    return { ...summary, failed, durationMs, output: captured };
  } catch {
    return {
      passed: 0,
      failed: 1,
      skipped: [],
      unfinished: [],
      lingered: [],
      failures: [],
      slowest: [],
      durationMs,
      output: captured,
    }; // died before reporting
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** A line per unfinished file (its path, how many of its tests had reported), and per lingering one. */
export function fileLines({ unfinished, lingered }: Pick<FilesRun, 'unfinished' | 'lingered'>): string[] {
  return [
    ...unfinished.map(
      ({ file, reported }) =>
        `✖ ${relative(repoRoot, file)}: its process ended after ${reported} test${reported === 1 ? '' : 's'}, before the end of the file`,
    ),
    ...lingered.map(
      (file) => `⚠ ${relative(repoRoot, file)}: still running after its last test, ended (it leaves something open)`,
    ),
  ];
}
