// The fault soak (npm run soak, bench/soak.ts) for two minutes on Redis Sentinel: the split platform
// under mixed load while every kind of fault is injected once, its history read by the checker. CI
// runs this short soak; docs/operating.md has the ten-minute runs in both Redis modes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { repoRoot, runProcess } from '@devplat/test/process';
import { needsRedisBinaries } from '@devplat/test/redis-topologies';
import { needsStores } from '@devplat/test/topology';

describe('the fault soak', { skip: needsStores || needsRedisBinaries }, () => {
  test('two minutes on Sentinel: every fault once, the history passes its checker', { timeout: 330_000 }, async () => {
    const soak = runProcess(process.execPath, ['bench/soak.ts', '--redis', 'sentinel', '--duration', '2m'], {
      cwd: repoRoot,
      env: process.env,
    });
    const { code, stdout, stderr } = await soak.done;
    // The run's tables (fault windows, availability) go to the test's output as they are.
    process.stdout.write(`${stdout.replace(/^/gm, '# ')}\n`);
    assert.equal(
      code,
      0,
      `the soak failed (its seed is on its first line):\n${stdout.slice(-6_000)}\n${stderr.slice(-2_000)}`,
    );
    assert.match(stdout, /^PASS/m);
  });
});
