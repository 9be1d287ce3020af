// docs/operating.md ("Fault bounds") states each fault's bound as bench/soak/bounds.ts holds it:
// every kind, in both Redis modes, and nothing more.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { faultBounds } from './bounds.ts';
import type { Bound } from './history.ts';

const doc = readFileSync(new URL('../../docs/operating.md', import.meta.url), 'utf8');

/** A bound as the table words it. */
const worded = (bound: Bound) =>
  bound.ms === 0 && bound.from === 'start'
    ? 'nothing may fail'
    : `≤ ${(bound.ms / 1000).toFixed(1)} s after it ${bound.from === 'start' ? 'began' : 'ended'}`;

test('the bounds table in docs/operating.md is the soak’s own', () => {
  const table = /<!-- bounds\.ts:[^>]*-->([\s\S]*?)<!-- \/bounds\.ts -->/.exec(doc)?.[1];
  assert.ok(table, 'the table between its markers');
  const rows = table
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .slice(2)
    .map((line) => line.split('|').map((cell) => cell.trim()))
    .map(([, fault, sentinel, cluster]) => [fault, sentinel, cluster]);
  const sentinel = faultBounds('sentinel');
  const cluster = faultBounds('cluster');
  assert.deepEqual(
    rows,
    Object.keys(sentinel).map((fault) => [fault, worded(sentinel[fault] as Bound), worded(cluster[fault] as Bound)]),
  );
});
