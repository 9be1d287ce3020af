import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryDelayMs } from '../src/backoff.ts';

const day = 24 * 60 * 60 * 1000;

test('retries double from the base, somewhere between half and the whole of the step', () => {
  assert.equal(
    retryDelayMs(1, 30_000, () => 0),
    15_000,
  );
  assert.equal(
    retryDelayMs(1, 30_000, () => 1),
    30_000,
  );
  assert.equal(
    retryDelayMs(2, 30_000, () => 1),
    60_000,
  );
  assert.equal(
    retryDelayMs(7, 30_000, () => 1),
    30_000 * 64,
  );
  for (let run = 0; run < 100; run += 1) {
    const delay = retryDelayMs(3, 1000);
    assert.ok(delay >= 2000 && delay <= 4000, `${delay}`);
  }
});

test('no retry waits longer than a day', () => {
  assert.equal(
    retryDelayMs(20, 3_600_000, () => 1),
    day,
  );
  assert.equal(
    retryDelayMs(20, 3_600_000, () => 0),
    day / 2,
  );
});
