// test/run.mjs counts honestly: a test file whose process ends before its last test (an early
// process.exit(0), a kill) counts as failed and is named, a test cut by --test-timeout fails, a file
// still running after its last test is ended and named, and a file that runs to its end counts its
// tests; each failed test is named with the start of its error. Each fixture runs as test/run.mjs runs the project's files.
import assert from 'node:assert/strict';
import { globSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { defaultPatterns, fileLines, repoRoot, runTestFiles } from './run-files.ts';

const fixture = (name: string) => join(repoRoot, 'test/runner/fixtures', `${name}.fixture.ts`);
const run = (name: string, lingerMs?: number) => {
  const result = runTestFiles([fixture(name)], { testTimeoutMs: 1_000, lingerMs, output: 'capture' });
  return { ...result, explained: `${JSON.stringify(result)}\n${result.output}` };
};

describe('the test runner counts honestly', () => {
  test('a file that calls process.exit(0) in the second of its three tests is one failure, named', () => {
    const result = run('exits-early');
    assert.deepEqual([result.passed, result.failed], [1, 1], result.explained);
    assert.deepEqual(result.unfinished, [{ file: fixture('exits-early'), reported: 1 }]);
    assert.deepEqual(fileLines(result), [
      '✖ test/runner/fixtures/exits-early.fixture.ts: its process ended after 1 test, before the end of the file',
    ]);
  });

  test('a file that exits 0 before any test reported is a failure, not a pass', () => {
    const result = run('exits-at-once');
    assert.deepEqual([result.passed, result.failed], [0, 1], result.explained);
    assert.deepEqual(result.unfinished, [{ file: fixture('exits-at-once'), reported: 0 }]);
  });

  test('a file whose process is killed in its second test is one failure, named', () => {
    const result = run('crashes');
    assert.deepEqual([result.passed, result.failed], [1, 1], result.explained);
    assert.deepEqual(result.unfinished, [{ file: fixture('crashes'), reported: 1 }]);
  });

  test('a test that hangs past --test-timeout fails, and the tests after it still run', () => {
    const result = run('hangs');
    assert.deepEqual(
      [result.passed, result.failed, result.unfinished, result.lingered],
      [2, 1, [], []],
      result.explained,
    );
    assert.match(result.output, /test timed out after 1000ms/);
    assert.deepEqual(result.failures, [{ file: fixture('hangs'), name: 'two', error: 'test timed out after 1000ms' }]);
  });

  test('a file still running after its last test is ended once the bound is past, and named, its tests counted', () => {
    const result = run('lingers', 500);
    assert.deepEqual([result.passed, result.failed, result.unfinished], [1, 0, []], result.explained);
    assert.deepEqual(result.lingered, [fixture('lingers')]);
    assert.match(result.output, /still running 500 ms after its last test \(open: .*Timeout/);
    assert.deepEqual(fileLines(result), [
      '⚠ test/runner/fixtures/lingers.fixture.ts: still running after its last test, ended (it leaves something open)',
    ]);
  });

  test('a file that runs to its end counts its passing tests, not its suites nor a skipped one', () => {
    const result = run('passes');
    assert.deepEqual(
      [result.passed, result.failed, result.unfinished, result.lingered],
      [3, 0, [], []],
      result.explained,
    );
  });

  test('each skip is counted once with its reason: by option, as it runs, a todo, a whole suite', () => {
    const result = run('passes');
    const file = fixture('passes');
    assert.deepEqual(result.skipped, [
      { file, name: 'skipped', reason: 'not counted' },
      { file, name: 'skipped as it runs', reason: 'no tool here' },
      { file, name: 'a todo', reason: 'later' },
      { file, name: 'a skipped suite', reason: 'needs a store' },
    ]);
  });

  test('the project run picks up this file and none of the fixtures', () => {
    const picked = globSync(defaultPatterns, { cwd: repoRoot });
    assert.ok(picked.includes('test/runner/early-exit.test.ts'));
    assert.deepEqual(
      picked.filter((file) => file.includes('fixtures')),
      [],
    );
  });
});
