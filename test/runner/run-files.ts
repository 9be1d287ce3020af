// How test/run.mjs runs test files: node's test runner with its flags, the spec reporter on stdout
// and test/summary-reporter.mjs's count. Its own test runs it on fixture files the same way.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

export const repoRoot = new URL('../..', import.meta.url).pathname;

/**
 * The areas of test/, each a folder of test files: the contract's operations and refusals, the
 * player client, the developer console, webhooks, operating the platform, the platform on Redis
 * Cluster and Sentinel, and the infrastructure
 * (the image, the Kubernetes manifests, the topology), and the docs. test/support is their shared code.
 */
export const testAreas = ['contract', 'players', 'console', 'webhooks', 'operating', 'redis', 'infra', 'docs'];

/** Every test file of the project, and nothing else (the fixtures here end in .fixture.ts). */
export const defaultPatterns = [
  'packages/*/test/**/*.test.ts',
  'services/*/test/**/*.test.ts',
  ...testAreas.map((area) => `test/${area}/**/*.test.ts`),
  'test/runner/**/*.test.ts',
];

export interface FilesRun {
  passed: number;
  failed: number;
  /** Files whose process ended before it reached its end, with how many tests each had reported. */
  unfinished: { file: string; reported: number }[];
  /** Files the linger guard ended after their last test: something they started was left open. */
  lingered: string[];
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
    return { passed: 0, failed: 1, unfinished: [], lingered: [], durationMs, output: captured }; // died before reporting
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
