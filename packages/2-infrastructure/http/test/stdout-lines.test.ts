// gatheredLines (src/stdout-lines.ts): lines reach the destination together, in order, at most a
// window after the first of them; 64 KiB is written at once; flush writes at once. The service's
// real stdout, its drain and a SIGKILL are test/operating/log-buffer.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { gatheredLines, logWindowMs } from '../src/stdout-lines.ts';

/** A destination that keeps each write it is given, with when it came. */
function keptWrites() {
  const writes: { text: string; at: number }[] = [];
  return { writes, destination: { write: (text: string) => void writes.push({ text, at: performance.now() }) } };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** Polls `condition` every millisecond until it holds; fails after `ms`. */
async function eventually(condition: () => boolean, ms: number) {
  const end = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > end) assert.fail(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
const numbers = (text: string) =>
  text
    .trimEnd()
    .split('\n')
    .map((line) => (JSON.parse(line) as { n: number }).n);

test("a window's lines are one write, in order, once the window ends, and not before", async () => {
  const { writes, destination } = keptWrites();
  const logger = pino({ base: {} }, gatheredLines(destination));
  const first = performance.now();
  for (let n = 1; n <= 50; n++) logger.info({ n }, 'request');
  await nextTurn();
  // Lines of later turns within the window join the same write.
  for (let n = 51; n <= 60; n++) logger.info({ n }, 'request');
  if (performance.now() - first < logWindowMs) assert.equal(writes.length, 0, 'nothing is written within the window');
  const written = () => writes.flatMap(({ text }) => numbers(text));
  // On a loaded machine the second turn may come after the window: then its lines are a later write.
  await eventually(() => written().length === 60, 2_000);
  const [write] = writes;
  assert.ok((write?.at ?? 0) - first >= logWindowMs - 1, 'written once the window has passed');
  assert.deepEqual(
    written(),
    Array.from({ length: 60 }, (_, index) => index + 1),
  );
  const before = writes.length;
  logger.info({ n: 61 }, 'request');
  await eventually(() => writes.length === before + 1, 2_000);
  assert.deepEqual(numbers(writes[before]?.text ?? ''), [61], 'a line after the window has a write of its own');
});

test('64 KiB gathered is written at once, without waiting for the window', () => {
  const { writes, destination } = keptWrites();
  const logger = pino({ base: {} }, gatheredLines(destination, 60_000));
  const padding = 'x'.repeat(1000);
  for (let n = 1; n <= 70; n++) logger.info({ n, padding }, 'request');
  assert.equal(writes.length, 1, 'the line that passes 64 KiB writes what was gathered');
  const text = writes[0]?.text ?? '';
  const written = numbers(text);
  assert.deepEqual(
    written,
    Array.from({ length: written.length }, (_, i) => i + 1),
  );
  const lastLine = text.length - text.trimEnd().lastIndexOf('\n') - 1;
  assert.ok(
    text.length >= 64 * 1024 && text.length - lastLine < 64 * 1024,
    'the write came with the line that passed 64 KiB',
  );
});

test('flush writes what was gathered at once', () => {
  const { writes, destination } = keptWrites();
  const logger = pino({ base: {} }, gatheredLines(destination, 60_000));
  logger.warn('second interrupt');
  let flushed = false;
  logger.flush(() => {
    flushed = true;
  });
  assert.equal(flushed, true);
  assert.equal(writes.length, 1);
  assert.match(writes[0]?.text ?? '', /"msg":"second interrupt"/);
});
