// docs/capacity.md's tables are the capacity model's output on the committed measurements
// (bench/capacity.ts on docs/capacity/data): a doc that says other figures than its script is wrong.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';

const root = join(import.meta.dirname, '../..');

/** A table's cells, whatever the padding the formatter gave its columns. */
const normalised = (text: string) =>
  text
    .trim()
    .split('\n')
    .map((line) =>
      line
        .replace(/\s*\|\s*/g, '|')
        .replace(/-{3,}/g, '---')
        .trim(),
    )
    .join('\n');

test("docs/capacity.md's tables are bench/capacity.ts's output on docs/capacity/data", () => {
  const doc = readFileSync(join(root, 'docs/capacity.md'), 'utf8');
  const start = doc.indexOf('\n', doc.indexOf('<!-- capacity.ts:'));
  const end = doc.indexOf('<!-- /capacity.ts -->');
  assert.ok(start > 0 && end > start, 'the doc marks where the tables are');
  const printed = execFileSync(process.execPath, ['bench/capacity.ts'], { cwd: root, encoding: 'utf8' });
  assert.equal(normalised(doc.slice(start, end)), normalised(printed));
});

test("the production overlay's autoscalers are the model's: today's replicas and one to spare, at most 10x of today", () => {
  const printed = execFileSync(process.execPath, ['bench/capacity.ts'], { cwd: root, encoding: 'utf8' });
  const overlay = readFileSync(join(root, 'infra/kubernetes/overlays/production/kustomization.yaml'), 'utf8');
  for (const service of ['auth', 'api']) {
    const [, min, max] = new RegExp(`^\\| ${service} \\| (\\d+) \\| (\\d+) \\|`, 'm').exec(printed) ?? [];
    const patch = new RegExp(
      `name: ${service}\\n    patch: \\|-\\n      - op: replace\\n        path: /spec/minReplicas\\n        value: (\\d+)\\n      - op: replace\\n        path: /spec/maxReplicas\\n        value: (\\d+)`,
    ).exec(overlay);
    assert.ok(min && patch, `the model and the overlay both bound ${service}`);
    assert.deepEqual([patch[1], patch[2]], [min, max], `${service}: minReplicas and maxReplicas`);
  }
});
