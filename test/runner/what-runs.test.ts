// What test/run.mjs runs is found, not listed: every test file under test/ (a new area folder
// included) runs in the direct pass; the gateway pass is exactly the contract's files, each of
// which reaches the platform through the door; and under CI a skip that is not on the list of
// expected skips fails the run, while the closing line counts skips.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { globSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { expectedSkips } from '../expected-skips.ts';
import { defaultPatterns, gatewayPassFiles, repoRoot, testAreas, unexpectedSkips, usesTheDoor } from './run-files.ts';

const picked = new Set(globSync(defaultPatterns, { cwd: repoRoot }));

describe('what the test command runs', () => {
  test('every test file of the repository is picked, whatever folder it is in', () => {
    const everyTestFile = globSync('**/*.test.ts', {
      cwd: repoRoot,
      exclude: (name) => ['node_modules', '.toolchain', '.data', '.git'].includes(name),
    });
    assert.ok(everyTestFile.length > 100, `${everyTestFile.length} test files found`);
    assert.ok(everyTestFile.includes('bench/soak/checker.test.ts'), 'the soak checker is tested');
    assert.deepEqual(
      everyTestFile.filter((file) => !picked.has(file)),
      [],
    );
  });

  test('the areas are the folders of test/ but its shared code, the runner and the interop harness', () => {
    assert.ok(testAreas.includes('contract') && testAreas.includes('infra'), testAreas.join(', '));
    for (const notArea of ['support', 'runner', 'interop', 'node_modules']) assert.ok(!testAreas.includes(notArea));
    // No test file lives in a folder that is not an area.
    assert.deepEqual(globSync(['test/support/**/*.test.ts', 'test/interop/**/*.test.ts'], { cwd: repoRoot }), []);
  });

  test('the gateway pass is every contract test file, and each reaches the platform through the door', () => {
    const files = gatewayPassFiles();
    assert.ok(files.includes('test/contract/door-parity.test.ts'), files.join(', '));
    assert.deepEqual(
      files.filter((file) => !file.startsWith('test/contract/')),
      [],
    );
    assert.deepEqual(
      files.filter((file) => !usesTheDoor(file)),
      [],
      'a file of the gateway pass that never uses the door would count its tests twice for nothing',
    );
    assert.ok(!usesTheDoor('test/operating/platform.test.ts'), 'the entry points run as processes, not at the door');
  });

  test('each expected skip names a test file that exists and says why', () => {
    for (const entry of expectedSkips) {
      assert.ok(picked.has(entry.file), `${entry.file} is a test file`);
      assert.ok(
        readFileSync(join(repoRoot, entry.file), 'utf8').includes(entry.name),
        `${entry.file} has ${entry.name}`,
      );
      assert.ok(entry.why.length > 10, `${entry.file} › ${entry.name} says why`);
    }
  });

  test('a skip counts as unexpected unless its file, name and pass are listed', () => {
    const file = join(repoRoot, 'test/contract/some.test.ts');
    const skip = { file, name: 'needs a tool', reason: 'no tool here' };
    const listed = { file: 'test/contract/some.test.ts', name: 'needs a tool', why: 'a reason of some length' };
    assert.deepEqual(unexpectedSkips([skip], [], 'direct'), [skip]);
    assert.deepEqual(unexpectedSkips([skip], [listed], 'direct'), []);
    assert.deepEqual(unexpectedSkips([skip], [{ ...listed, door: 'gateway' }], 'direct'), [skip]);
    assert.deepEqual(unexpectedSkips([skip], [{ ...listed, door: 'gateway' }], 'gateway'), []);
    assert.deepEqual(unexpectedSkips([skip], [{ ...listed, name: 'another' }], 'direct'), [skip]);
  });

  test('under CI=true an unexpected skip fails the run, named; the closing line counts skips', () => {
    const fixture = 'test/runner/fixtures/passes.fixture.ts';
    const runner = (ci: string) =>
      spawnSync(process.execPath, ['test/run.mjs', '--no-checks', fixture], {
        cwd: repoRoot,
        encoding: 'utf8',
        env: { ...process.env, CI: ci, NODE_TEST_CONTEXT: undefined },
      });
    const inCi = runner('true');
    assert.equal(inCi.status, 1, inCi.stdout);
    assert.match(
      inCi.stdout,
      /✖ skipped, not on test\/expected-skips\.ts: test\/runner\/fixtures\/passes\.fixture\.ts › a skipped suite \(needs a store\)/,
    );
    assert.match(inCi.stdout, /\ndirect: 3 passed, 4 failed, 4 skipped in \d+s\n3 passed, 4 failed, 4 skipped\n$/);
    const outside = runner('');
    assert.equal(outside.status, 0, outside.stdout);
    assert.match(outside.stdout, /- skipped: test\/runner\/fixtures\/passes\.fixture\.ts › skipped \(not counted\)/);
    assert.match(outside.stdout, /\n3 passed, 0 failed, 4 skipped\n$/);
  });
});
