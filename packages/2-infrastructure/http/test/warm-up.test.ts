// A service runs its readiness checks before it listens (warm-up.ts): until they pass, or past the
// bound, after which it listens anyway and a warning names what failed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createLogger, warmUp } from '../src/index.ts';

function capturedLogger() {
  const lines: { level: number; msg: string; failed?: string[] }[] = [];
  const logger = createLogger('info', 'test', { write: (line: string) => lines.push(JSON.parse(line)) });
  return { logger, lines };
}

/** A check that fails its first `failures` calls, then passes; counts its calls. */
function flaky(name: string, failures: number) {
  let calls = 0;
  return {
    name,
    calls: () => calls,
    check: async () => {
      calls += 1;
      if (calls <= failures) throw new Error(`${name} not yet`);
    },
  };
}

describe('warming up before listening', () => {
  test('checks that pass on the third round: ready, every check run until then, nothing logged', async () => {
    const { logger, lines } = capturedLogger();
    const postgres = flaky('postgresql', 2);
    const keys = flaky('signing-keys', 0);
    assert.equal(await warmUp([postgres, keys], logger, 5_000), true);
    assert.deepEqual([postgres.calls(), keys.calls()], [3, 3]);
    assert.deepEqual(lines, []);
  });

  test('a check that keeps failing: not ready once the bound is past, and the warning names it', async () => {
    const { logger, lines } = capturedLogger();
    const redis = flaky('redis', Number.POSITIVE_INFINITY);
    assert.equal(await warmUp([flaky('postgresql', 0), redis], logger, 500), false);
    assert.ok(redis.calls() >= 2, `${redis.calls()} rounds`);
    assert.deepEqual(
      lines.map(({ level, msg, failed }) => ({ level, msg, failed })),
      [{ level: 40, msg: 'listening before ready: redis did not pass within 500 ms', failed: ['redis'] }],
    );
  });

  test('a check that never answers ends at the bound', async () => {
    const { logger, lines } = capturedLogger();
    const silent = { name: 'postgresql', check: () => new Promise<void>(() => {}) };
    const started = Date.now();
    assert.equal(await warmUp([silent], logger, 300), false);
    assert.ok(Date.now() - started < 2_000, `${Date.now() - started} ms`);
    assert.deepEqual(lines[0]?.failed, ['postgresql']);
  });
});
