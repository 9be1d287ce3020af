// The soak's checker on hand-made histories: a clean one passes; each rule, broken once, is named.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { check, expectedEvents } from './checker.ts';
import type { Delivery, Entry } from './history.ts';

/** A history written as a client saw it: each call one request, in order, one time unit apart. */
function history() {
  const entries: Entry[] = [];
  const add = (entry: Omit<Entry, 'seq' | 'start' | 'end' | 'expect'> & { expect?: number[] }) => {
    const seq = entries.length;
    entries.push({ expect: [200], ...entry, seq, start: seq * 10, end: seq * 10 + 5 });
  };
  return {
    entries,
    /** A chain's consent: its code redeemed for access `a0` and refresh `r0` (tokens named `<chain>:…`). */
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
    refresh(chain: number, from: number, status: number | null, error?: string) {
      add({
        op: 'refresh',
        chain,
        status,
        error,
        presented: `${chain}:r${from}`,
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
    me(chain: number, status: number) {
      add({ op: 'me', chain, status, expect: [200, 401, 403] });
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

/** A clean history: rotations, a 503 and a transport error retried, a revocation, a deliberate reuse. */
function clean() {
  const h = history();
  h.start(1);
  h.refresh(1, 0, 200);
  h.refresh(1, 1, 503, 'SERVICE_UNAVAILABLE');
  h.refresh(1, 1, 200); // the 503 used nothing up: the retry is the first use
  h.me(1, 200);
  h.revoke(1, 2);
  h.me(1, 403);
  h.refresh(1, 2, 400, 'invalid_grant');
  h.start(2);
  h.refresh(2, 0, 200);
  h.refresh(2, 1, 200);
  h.reuse(2, 0);
  h.refresh(2, 2, 400, 'invalid_grant');
  h.me(2, 403);
  return { h, deliveries: [granted(1), revoked(1), granted(2), revoked(2), granted(2)] };
}

const rules = (entries: Entry[], deliveries: Delivery[]) => check(entries, deliveries).violations.map((v) => v.rule);

test('a clean history passes, and the events it promises are each granted consent and each acknowledged end', () => {
  const { h, deliveries } = clean();
  assert.deepEqual(check(h.entries, deliveries), { violations: [], unknowns: [] });
  assert.deepEqual(
    expectedEvents(h.entries).map((event) => `${event.type} ${event.consentId}`),
    [
      'consent.granted consent-1',
      'consent.revoked consent-1',
      'consent.granted consent-2',
      'consent.revoked consent-2',
    ],
  );
});

test('rule 1: a refresh token accepted twice (a deliberate reuse answered 200)', () => {
  const h = history();
  h.start(1);
  h.refresh(1, 0, 200);
  h.reuse(1, 0, 200);
  const verdict = check(h.entries, [granted(1)]);
  assert.deepEqual(
    verdict.violations.map((v) => v.rule),
    [1],
  );
  assert.match(verdict.violations[0]?.message ?? '', /refresh token accepted 2 times/);
});

test('rule 1: a code accepted twice', () => {
  const h = history();
  h.start(1);
  h.entries.push({ ...(h.entries[1] as Entry), seq: 2, start: 20, end: 25 });
  assert.deepEqual(rules(h.entries, [granted(1)]), [1]);
});

test('rule 2: /me answered 200 after the revocation was answered 200', () => {
  const h = history();
  h.start(1);
  h.refresh(1, 0, 200);
  h.revoke(1, 1);
  h.me(1, 200);
  const verdict = check(h.entries, [granted(1), revoked(1)]);
  assert.deepEqual(
    verdict.violations.map((v) => v.rule),
    [2],
  );
  assert.match(verdict.violations[0]?.message ?? '', /me answered 200 after the family ended by revocation/);
});

test('rule 2: a refresh answered 200 after a deliberate reuse was answered invalid_grant', () => {
  const h = history();
  h.start(1);
  h.refresh(1, 0, 200);
  h.reuse(1, 0);
  h.refresh(1, 1, 200);
  assert.deepEqual(rules(h.entries, [granted(1), revoked(1)]), [2]);
});

test('a revocation with no answer may have ended the family: a refusal after it is reported, not failed', () => {
  const h = history();
  h.start(1);
  h.revoke(1, 0, null);
  h.refresh(1, 0, 400, 'invalid_grant');
  const verdict = check(h.entries, [granted(1)]);
  assert.deepEqual(verdict.violations, []);
  assert.equal(verdict.unknowns.length, 1);
});

test('rule 3: a refresh token received in a 200 is refused the first time it is presented', () => {
  const h = history();
  h.start(1);
  h.refresh(1, 0, 200);
  h.refresh(1, 1, 400, 'invalid_grant');
  assert.deepEqual(rules(h.entries, [granted(1)]), [3]);
});

test('rule 4: the current token, retried after a 503, refused with invalid_grant with no reuse before', () => {
  const h = history();
  h.start(1);
  h.refresh(1, 0, 503, 'SERVICE_UNAVAILABLE');
  h.refresh(1, 0, 400, 'invalid_grant');
  assert.deepEqual(rules(h.entries, [granted(1)]), [4]);
});

test('no answer is an unknown outcome: a refusal after retrying that token is reported, not failed', () => {
  const h = history();
  h.start(1);
  h.refresh(1, 0, null, 'ECONNRESET');
  h.refresh(1, 0, 400, 'invalid_grant');
  const verdict = check(h.entries, [granted(1)]);
  assert.deepEqual(verdict.violations, []);
  assert.equal(verdict.unknowns.length, 1);
  assert.match(verdict.unknowns[0]?.message ?? '', /unknown outcome/);
});

test('rule 5: a consent event never delivered', () => {
  const { h, deliveries } = clean();
  const verdict = check(
    h.entries,
    deliveries.filter((delivery) => delivery.webhookId !== 'msg_r1'),
  );
  assert.deepEqual(
    verdict.violations.map((v) => v.rule),
    [5],
  );
  assert.match(verdict.violations[0]?.message ?? '', /chain 1: consent.revoked never delivered/);
});

test('rule 5: one consent event delivered under two webhook-ids', () => {
  const { h, deliveries } = clean();
  const verdict = check(h.entries, [...deliveries, granted(1, 'msg_other')]);
  assert.deepEqual(
    verdict.violations.map((v) => v.rule),
    [5],
  );
  assert.match(
    verdict.violations[0]?.message ?? '',
    /consent.granted consent-1 delivered under 2 different webhook-ids/,
  );
});
