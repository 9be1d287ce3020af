// The soak's checker on hand-made runs: a clean one passes; each kind of bug it claims to find,
// planted once, fails it by name. (test/infra/soak.test.ts plants them in a real run's history too.)
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check, expectedEvents, type Rule, type Run } from './checker.ts';
import type { Bound, Delivery, Entry, FaultWindow } from './history.ts';

const redisKill = 'Redis primary SIGKILL, back as a replica';
const authKill = 'SIGKILL a auth replica';

/** A run written as a client saw it: each request one after another, 100 ms apart. */
function recorder() {
  const entries: Entry[] = [];
  const faults: FaultWindow[] = [];
  const add = (entry: Omit<Entry, 'seq' | 'start' | 'end' | 'expect'> & { expect?: number[] }) => {
    const seq = entries.length;
    const recorded = { expect: [200], ...entry, seq, start: seq * 100, end: seq * 100 + 50 };
    entries.push(recorded);
    return recorded;
  };
  const now = () => entries.length * 100;
  return {
    entries,
    faults,
    now,
    /** A fault from now, lasting `ms` (the requests after it are inside it until `ms` passes). */
    fault(name: string, bound: Bound, ms: number, detail = 'done') {
      faults.push({ name, bound, detail, start: now(), end: now() + ms });
    },
    /** A chain's consent: its code redeemed for access a0 and refresh r0 (tokens named `<chain>:…`). */
    start(chain: number) {
      add({ op: 'authorize', chain, status: 302, expect: [302] });
      add({
        op: 'code',
        chain,
        status: 200,
        presented: `${chain}:code`,
        received: { access: `${chain}:a0`, refresh: `${chain}:r0`, consent: `consent-${chain}` },
      });
    },
    /** Presents refresh token r<from>; a 200 hands out r<from+1>. */
    refresh(chain: number, from: number, status: number | null, error?: string, final = false) {
      return add({
        op: 'refresh',
        chain,
        status,
        error,
        presented: `${chain}:r${from}`,
        ...(final ? { final } : {}),
        ...(status === 200 ? { received: { access: `${chain}:a${from + 1}`, refresh: `${chain}:r${from + 1}` } } : {}),
      });
    },
    reuse(chain: number, token: number, status: number | null = 400) {
      add({
        op: 'reuse',
        chain,
        status,
        error: status === 400 ? 'invalid_grant' : undefined,
        presented: `${chain}:r${token}`,
        expect: [400],
      });
    },
    revoke(chain: number, token: number, status: number | null = 200) {
      add({ op: 'revoke', chain, status, presented: `${chain}:r${token}` });
    },
    me(chain: number, status: number, expect = [200], final = false) {
      return add({ op: 'me', chain, status, expect, ...(final ? { final } : {}) });
    },
    call(op: Entry['op'], status: number | null, extra: Partial<Entry> = {}) {
      return add({ op, status, ...extra });
    },
  };
}

const granted = (chain: number, id = `msg_g${chain}`): Delivery => ({
  webhookId: id,
  type: 'consent.granted',
  consentId: `consent-${chain}`,
  signatureValid: true,
});
const revoked = (chain: number, id = `msg_r${chain}`): Delivery => ({ ...granted(chain, id), type: 'consent.revoked' });

/**
 * A clean run: a Redis primary's death (refreshes answered 503 inside it, retried), an auth
 * replica's that cost nothing; a revocation, a deliberate reuse, a family live at the end and
 * checked; client credentials; a suspension in force; every event once.
 */
function clean(): Run & { r: ReturnType<typeof recorder> } {
  const r = recorder();
  r.start(1);
  r.refresh(1, 0, 200);
  r.fault(redisKill, { from: 'start', ms: 6_000 }, 250);
  r.refresh(1, 1, 503, 'SERVICE_UNAVAILABLE');
  r.refresh(1, 1, 200); // the 503 used nothing up: the retry is the first use
  r.me(1, 200);
  r.revoke(1, 2);
  r.me(1, 403, [401, 403]);
  r.refresh(1, 2, 400, 'invalid_grant');
  r.call('client_credentials', 200);
  r.call('cities', 200);
  r.call('client_credentials', 200);
  r.call('cities', 200);
  r.call('client_credentials', 200);
  r.call('cities', 200);
  r.call('client_credentials', 200);
  r.call('cities', 200);
  r.call('client_credentials', 200);
  r.call('cities', 200);
  r.fault(authKill, { from: 'start', ms: 0 }, 100);
  r.start(2);
  r.refresh(2, 0, 200);
  r.refresh(2, 1, 200);
  r.reuse(2, 0);
  r.me(2, 403, [401, 403]);
  r.refresh(2, 2, 400, 'invalid_grant');
  r.start(3);
  r.refresh(3, 0, 200);
  const suspended = r.call('suspend', 200);
  const acknowledged = { write: 'the suspension', seq: suspended.seq };
  r.call('refused_app', 401, { expect: [401], acknowledged });
  r.call('unsuspend', 200);
  r.refresh(3, 1, 200, undefined, true);
  r.me(3, 200, [200], true);
  return {
    r,
    entries: r.entries,
    faults: r.faults,
    deliveries: [granted(1), revoked(1), granted(2), revoked(2), granted(3)],
    kinds: [redisKill, authKill],
    minimums: { refresh: 3, client_credentials: 3, cities: 3, reuse: 1, revoke: 1, suspend: 1 },
  };
}

const rulesOf = (run: Run) => [...new Set(check(run).violations.map((violation) => violation.rule))];
const messagesOf = (run: Run, rule: Rule) =>
  check(run)
    .violations.filter((violation) => violation.rule === rule)
    .map((violation) => violation.message);

test('a clean run passes, and the events it promises are each granted consent and each acknowledged end', () => {
  const run = clean();
  assert.deepEqual(check(run), { violations: [], unknowns: [] });
  assert.deepEqual(
    expectedEvents(run.entries).map((event) => `${event.type} ${event.consentId}`),
    [
      'consent.granted consent-1',
      'consent.revoked consent-1',
      'consent.granted consent-2',
      'consent.revoked consent-2',
      'consent.granted consent-3',
    ],
  );
});

test('a token accepted twice: a deliberate reuse answered 200', () => {
  const run = clean();
  const reuse = run.entries.find((entry) => entry.op === 'reuse') as Entry;
  Object.assign(reuse, { status: 200, error: undefined });
  assert.ok(rulesOf(run).includes('accepted twice'));
  assert.match(messagesOf(run, 'accepted twice')[0] ?? '', /refresh token accepted 2 times/);
});

test('a code accepted twice', () => {
  const run = clean();
  run.entries.push({ ...(run.entries[1] as Entry), seq: run.entries.length, start: 90_000, end: 90_050 });
  assert.ok(rulesOf(run).includes('accepted twice'));
});

test('a 2xx after an acknowledged revocation: /me answered 200', () => {
  const run = clean();
  const probe = run.entries.find((entry) => entry.op === 'me' && entry.status === 403 && entry.chain === 1) as Entry;
  probe.status = 200;
  assert.deepEqual(rulesOf(run), ['success after an acknowledged end']);
  assert.match(
    messagesOf(run, 'success after an acknowledged end')[0] ?? '',
    /chain 1: me answered 200 after the family ended by revocation/,
  );
});

test('a 2xx after a deliberate reuse was answered invalid_grant', () => {
  const run = clean();
  const after = run.entries.findLast((entry) => entry.chain === 2 && entry.op === 'refresh') as Entry;
  Object.assign(after, { status: 200, error: undefined });
  assert.deepEqual(rulesOf(run), ['success after an acknowledged end']);
});

test('an acknowledged suspension lost: its probe answered 200', () => {
  const run = clean();
  const probe = run.entries.find((entry) => entry.op === 'refused_app') as Entry;
  probe.status = 200;
  assert.deepEqual(rulesOf(run), ['success after an acknowledged end']);
  assert.match(
    messagesOf(run, 'success after an acknowledged end')[0] ?? '',
    /refused_app answered 200 after the suspension was acknowledged/,
  );
});

test('a lost rotation: a refresh token received in a 200 refused the first time it is presented', () => {
  const run = clean();
  const rotation = run.entries.find((entry) => entry.chain === 2 && entry.presented === '2:r1') as Entry;
  Object.assign(rotation, { status: 400, error: 'invalid_grant', received: undefined });
  assert.ok(rulesOf(run).includes('acknowledged rotation lost'));
});

test('a family ended after a 503: the current token, retried, refused with invalid_grant', () => {
  const run = clean();
  const retry = run.entries.find((entry) => entry.chain === 1 && entry.presented === '1:r1' && entry.status === 200);
  Object.assign(retry as Entry, { status: 400, error: 'invalid_grant', received: undefined });
  assert.ok(rulesOf(run).includes('family ended without a real reuse'));
});

test('no answer is an unknown outcome: a refusal after retrying that token is reported, not failed', () => {
  const run = clean();
  const failedOver = run.entries.find((entry) => entry.status === 503) as Entry;
  Object.assign(failedOver, { status: null, error: 'ECONNRESET' });
  const retry = run.entries.find((entry) => entry.chain === 1 && entry.presented === '1:r1' && entry.status === 200);
  Object.assign(retry as Entry, { status: 400, error: 'invalid_grant', received: undefined });
  const verdict = check(run);
  assert.deepEqual(verdict.violations, []);
  assert.match(verdict.unknowns[0]?.message ?? '', /unknown outcome/);
});

test('a fault kind never injected, and one whose injection failed', () => {
  const skipped = clean();
  skipped.faults.splice(1, 1);
  assert.deepEqual(rulesOf(skipped), ['fault not shown']);
  assert.deepEqual(messagesOf(skipped, 'fault not shown'), [`${authKill}: never injected`]);
  const threw = clean();
  Object.assign(threw.faults[1] as FaultWindow, { failed: true, detail: 'failed: no replica' });
  assert.deepEqual(rulesOf(threw), ['fault not shown']);
});

test('a failure outside every window: a 503 and an unanswered request with no fault near', () => {
  for (const status of [503, null]) {
    const run = clean();
    run.entries.push({ seq: 99, op: 'cities', start: 60_000, end: 60_050, status, expect: [200] });
    assert.deepEqual(rulesOf(run), ['failure outside every window']);
  }
});

test('a window past its bound: a 503 where nothing may fail, and one after a bound from the start', () => {
  const run = clean();
  const inAuthKill = run.entries.find((entry) => entry.start >= (run.faults[1] as FaultWindow).start) as Entry;
  inAuthKill.status = 503;
  assert.deepEqual(rulesOf(run), ['window past its bound']);
  assert.match(messagesOf(run, 'window past its bound')[0] ?? '', /SIGKILL a auth replica .* \(nothing may fail\)/);
  const late = clean();
  const redis = late.faults[0] as FaultWindow;
  redis.end = 5_000; // a long fault: a failure 6.6 s after its start is still put down to it
  late.entries.push({
    seq: 99,
    op: 'console',
    start: redis.start + 6_500,
    end: redis.start + 6_600,
    status: 503,
    expect: [200],
  });
  assert.ok(rulesOf(late).includes('window past its bound'));
  assert.match(
    messagesOf(late, 'window past its bound')[0] ?? '',
    /6\.6 s after its start \(bound 6\.0 s after its start\)/,
  );
});

test('an answer off the contract: a 500 inside a window, a 429, a body the document refuses', () => {
  for (const plant of [
    (entry: Entry) => Object.assign(entry, { status: 500 }),
    (entry: Entry) => Object.assign(entry, { status: 429, error: 'RATE_LIMITED' }),
    (entry: Entry) => Object.assign(entry, { nonconforming: ['a 200 without cache-control'] }),
  ]) {
    const run = clean();
    plant(run.entries.find((entry) => entry.op === 'cities') as Entry);
    assert.deepEqual(rulesOf(run), ['off-contract answer']);
  }
});

test('too few successes: a consent screen that never works, and a run with no requests', () => {
  const run = clean();
  for (const entry of run.entries.filter((each) => each.op === 'refresh' || each.op === 'code')) entry.status = 503;
  run.faults.push({ name: 'everything', bound: { from: 'start', ms: 1e9 }, detail: '', start: 0, end: 1e6 });
  assert.ok(rulesOf(run).includes('too few successes'));
  const empty = { ...clean(), entries: [], deliveries: [] };
  assert.deepEqual(rulesOf(empty), ['too few successes']);
  assert.match(
    messagesOf(empty, 'too few successes').join('\n'),
    /refresh: 0 outside every fault window \(at least 3\)/,
  );
});

test('a family live at the end that was never checked again, or whose final /me failed', () => {
  const unchecked = clean();
  unchecked.entries.splice(-2, 2);
  assert.deepEqual(rulesOf(unchecked), ['live family unusable at the end']);
  const refused = clean();
  Object.assign(refused.entries.at(-1) as Entry, { status: 401, error: 'invalid_token' });
  assert.deepEqual(rulesOf(refused).toSorted(), ['live family unusable at the end', 'off-contract answer']);
});

test('a consent event missing, doubled, or a consent.revoked no end explains', () => {
  const missing = clean();
  missing.deliveries = missing.deliveries.filter((delivery) => delivery.webhookId !== 'msg_r1');
  assert.deepEqual(messagesOf(missing, 'consent event missing or duplicated'), [
    'chain 1: consent.revoked never delivered',
  ]);
  const doubled = clean();
  doubled.deliveries.push(granted(1, 'msg_other'));
  assert.deepEqual(messagesOf(doubled, 'consent event missing or duplicated'), [
    'consent.granted consent-1 delivered under 2 different webhook-ids',
  ]);
  const unexplained = clean();
  unexplained.deliveries.push(revoked(3));
  assert.deepEqual(rulesOf(unexplained), ['consent.revoked unexplained']);
  assert.match(messagesOf(unexplained, 'consent.revoked unexplained')[0] ?? '', /chain 3 never ended its family/);
});
