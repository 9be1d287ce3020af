// linesPerTurn (src/stdout-lines.ts): the lines of one turn of the event loop reach the destination
// as one write, in order, when the turn ends; flush writes at once. The service's real stdout, its
// drain and a SIGKILL are test/operating/log-buffer.test.ts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { linesPerTurn } from '../src/stdout-lines.ts';

/** A destination that keeps each write it is given. */
function keptWrites() {
  const writes: string[] = [];
  return { writes, destination: { write: (text: string) => void writes.push(text) } };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test("one turn's lines are one write, in order, once the turn ends", async () => {
  const { writes, destination } = keptWrites();
  const logger = pino({ base: {} }, linesPerTurn(destination));
  for (let n = 1; n <= 50; n++) logger.info({ n }, 'request');
  assert.equal(writes.length, 0, 'nothing is written before the turn ends');
  await nextTurn();
  assert.equal(writes.length, 1);
  const lines = (writes[0] as string).trimEnd().split('\n');
  assert.deepEqual(
    lines.map((line) => (JSON.parse(line) as { n: number }).n),
    Array.from({ length: 50 }, (_, index) => index + 1),
  );
  logger.info({ n: 51 }, 'request');
  await nextTurn();
  assert.equal(writes.length, 2, "the next turn's line is a write of its own");
});

test('flush writes what the turn gathered at once', () => {
  const { writes, destination } = keptWrites();
  const logger = pino({ base: {} }, linesPerTurn(destination));
  logger.warn('second interrupt');
  let flushed = false;
  logger.flush(() => {
    flushed = true;
  });
  assert.equal(flushed, true);
  assert.equal(writes.length, 1);
  assert.match(writes[0] as string, /"msg":"second interrupt"/);
});
