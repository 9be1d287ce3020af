// The fault soak (npm run soak, bench/soak.ts) on Redis Sentinel and a PostgreSQL primary with a
// synchronous standby: the split platform under mixed load while every kind of fault is injected
// once (--faults once), its history read by the checker. Then the checker is shown to catch what
// it looks for: each kind of bug it names is planted in that real history, and each is named.
// CI runs this; docs/operating.md has the ten-minute runs.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { needsPostgresBinaries } from '@devplat/test/postgres-replication';
import { repoRoot, runProcess } from '@devplat/test/process';
import { needsRedisBinaries } from '@devplat/test/redis-topologies';
import { needsStores } from '@devplat/test/topology';
import { check, type Rule, type Run } from '../../bench/soak/checker.ts';
import { type Entry, failed } from '../../bench/soak/history.ts';

const scratch = mkdtempSync(join(tmpdir(), 'devplat-soak-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

/** A copy of the run, changed by `plant`, and the rules its checker names. */
function planted(run: Run, plant: (copy: Run) => void): Rule[] {
  const copy = structuredClone(run);
  plant(copy);
  return [...new Set(check(copy).violations.map((violation) => violation.rule))];
}

const next = (run: Run) => run.entries.length;
const last = (run: Run) => Math.max(...run.entries.map((entry) => entry.end));

describe('the fault soak', { skip: needsStores || needsRedisBinaries || needsPostgresBinaries }, () => {
  let run: Run;

  test('every fault once on Sentinel and a synchronous standby: the history passes its checker', {
    timeout: 600_000,
  }, async () => {
    const record = join(scratch, 'run.json');
    const args = [
      '--redis',
      'sentinel',
      '--postgres',
      'sync',
      '--faults',
      'once',
      '--duration',
      '60s',
      '--record',
      record,
    ];
    const soak = runProcess(process.execPath, ['bench/soak.ts', ...args], { cwd: repoRoot, env: process.env });
    const { code, stdout, stderr } = await soak.done;
    // The run's tables (fault windows against their bounds, availability) go to the test's output as they are.
    process.stdout.write(`${stdout.replace(/^/gm, '# ')}\n`);
    const tail = `${stdout.slice(-6_000)}\n${stderr.slice(-2_000)}`;
    assert.equal(code, 0, `the soak failed (its seed is on its first line):\n${tail}`);
    assert.match(stdout.trimEnd().split('\n').at(-1) ?? '', /^PASS: no violation$/);
    run = JSON.parse(readFileSync(record, 'utf8'));
    for (const kind of run.kinds) {
      const shown = run.faults.filter((fault) => fault.name === kind && !fault.failed);
      assert.ok(shown.length >= 1, `${kind} was injected`);
    }
    assert.ok(run.kinds.includes('PostgreSQL failover'), 'the failover is one of the kinds');
    for (const op of Object.keys(run.minimums)) {
      assert.ok(
        run.entries.some((entry) => entry.op === op && !failed(entry)),
        `${op} succeeded at least once`,
      );
    }
  });

  test('each kind of bug the checker names, planted in that history, fails it by name', (t) => {
    if (!run) return t.skip('the soak did not run');
    assert.deepEqual(
      planted(run, () => {}),
      [],
      'the history as recorded passes',
    );
    const entries = (copy: Run, where: (entry: Entry) => boolean) => copy.entries.filter(where);
    const chainOf = (copy: Run, entry: Entry) => copy.entries.filter((each) => each.chain === entry.chain);

    // A refresh token accepted twice: a rotation answered 200 again, later.
    assert.ok(
      planted(run, (copy) => {
        const rotation = entries(copy, (entry) => entry.op === 'refresh' && entry.status === 200)[0] as Entry;
        copy.entries.push({ ...rotation, seq: next(copy), start: last(copy) + 10, end: last(copy) + 20 });
      }).includes('accepted twice'),
    );
    // A lost rotation: a refresh token received in a 200, refused the first time it is presented.
    assert.ok(
      planted(run, (copy) => {
        const rotation = entries(copy, (entry) => entry.op === 'refresh' && entry.status === 200 && !entry.final).find(
          (entry) => copy.entries.some((each) => each.presented === entry.received?.refresh),
        ) as Entry;
        const use = copy.entries.find((each) => each.presented === rotation.received?.refresh) as Entry;
        Object.assign(use, { status: 400, error: 'invalid_grant', received: undefined });
      }).includes('acknowledged rotation lost'),
    );
    // A 2xx after an acknowledged revocation: the /me probe after it answered 200.
    assert.ok(
      planted(run, (copy) => {
        const revocation = entries(copy, (entry) => entry.op === 'revoke' && entry.status === 200)[0] as Entry;
        const probe = chainOf(copy, revocation).find((each) => each.op === 'me' && each.seq > revocation.seq) as Entry;
        probe.status = 200;
      }).includes('success after an acknowledged end'),
    );
    // An acknowledged suspension or secret revocation lost: its probe answered 200.
    assert.ok(
      planted(run, (copy) => {
        (entries(copy, (entry) => entry.op === 'refused_app')[0] as Entry).status = 200;
      }).includes('success after an acknowledged end'),
    );
    // A family ended after a 503: the current token, retried after a 503, refused with invalid_grant.
    assert.ok(
      planted(run, (copy) => {
        const refused = entries(copy, (entry) => entry.op === 'refresh' && entry.status === 503)[0] as Entry;
        const retry = chainOf(copy, refused).find(
          (each) => each.seq > refused.seq && each.presented === refused.presented,
        ) as Entry;
        Object.assign(retry, { status: 400, error: 'invalid_grant', received: undefined });
      }).includes('family ended without a real reuse'),
    );
    // A fault kind skipped, and one whose injection failed.
    assert.deepEqual(
      planted(run, (copy) => {
        copy.faults = copy.faults.filter((fault) => fault.name !== 'rolling restart');
      }),
      ['fault not shown'],
    );
    assert.ok(
      planted(run, (copy) => {
        Object.assign(copy.faults[0] as object, { failed: true, detail: 'failed: planted' });
      }).includes('fault not shown'),
    );
    // A failure outside every window: a 503 after the last fault's settling.
    assert.deepEqual(
      planted(run, (copy) => {
        const at = last(copy) + 60_000;
        copy.entries.push({ seq: next(copy), op: 'cities', start: at, end: at + 5, status: 503, expect: [200] });
      }),
      ['failure outside every window'],
    );
    // A window past its bound: a 503 while an api replica died (nothing may fail there).
    assert.deepEqual(
      planted(run, (copy) => {
        const kill = copy.faults.find((fault) => fault.name === 'SIGKILL a api replica') as { start: number };
        copy.entries.push({
          seq: next(copy),
          op: 'cities',
          start: kill.start + 5,
          end: kill.start + 10,
          status: 503,
          expect: [200],
        });
      }),
      ['window past its bound'],
    );
    // An answer off the contract: a 500.
    assert.deepEqual(
      planted(run, (copy) => {
        (entries(copy, (entry) => entry.op === 'cities' && entry.status === 200)[0] as Entry).status = 500;
      }),
      ['off-contract answer'],
    );
    // A consent event missing, and one delivered twice under different webhook-ids.
    assert.ok(planted(run, (copy) => copy.deliveries.shift()).includes('consent event missing or duplicated'));
    assert.deepEqual(
      planted(run, (copy) => {
        copy.deliveries.push({ ...(copy.deliveries[0] as Run['deliveries'][number]), webhookId: 'msg_planted' });
      }),
      ['consent event missing or duplicated'],
    );
    // No requests at all.
    assert.ok(
      planted(run, (copy) => {
        copy.entries = [];
        copy.deliveries = [];
      }).includes('too few successes'),
    );
  });
});
