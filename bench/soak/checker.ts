// Reads a soak's history and names every broken promise: the contract's single-use and end rules
// (below), and the run's own obligations (obligations.ts: every fault shown, each within its bound,
// nothing failed outside the faults, nothing off the contract, enough of every operation).
//   - accepted twice: a refresh token or code accepted (200) twice;
//   - success after an acknowledged end: a 2xx for a chain (token, /me) after its family's end was
//     acknowledged (a revocation answered 200, a deliberate reuse answered invalid_grant), or for a
//     probe that an acknowledged suspension or secret revocation must refuse;
//   - acknowledged rotation lost: a refresh token received in a 200, refused with invalid_grant the
//     first time it is presented, though nothing ended the family;
//   - family ended without a real reuse: a chain's current token (or a fresh code) refused with
//     invalid_grant though the chain never re-presented a rotated token and was not revoked;
//   - live family unusable at the end: a family nothing ended whose final refresh and /me failed;
//   - consent event missing or duplicated; consent.revoked unexplained (no end in the history).
// A request with no answer is an unknown outcome: what it presented may have been used (or, for a
// revocation, the family may have ended), so a later refusal it explains is noted, not failed. A
// 503 is a definite answer: nothing was used up.
import { type Delivery, type Entry, type FaultWindow, invalidGrant, is2xx, type Operation } from './history.ts';
import { attribute, obligations } from './obligations.ts';

export type Rule =
  | 'accepted twice'
  | 'success after an acknowledged end'
  | 'acknowledged rotation lost'
  | 'family ended without a real reuse'
  | 'live family unusable at the end'
  | 'consent event missing or duplicated'
  | 'consent.revoked unexplained'
  | 'fault not shown'
  | 'failure outside every window'
  | 'off-contract answer'
  | 'window past its bound'
  | 'too few successes';

export interface Violation {
  rule: Rule;
  message: string;
  /** The requests that show it (of one chain, or of one token). */
  excerpt: Entry[];
}

export interface Verdict {
  violations: Violation[];
  /** Refusals an unknown outcome explains: reported, not failed. */
  unknowns: { message: string; excerpt: Entry[] }[];
}

/** What a run recorded and what it promised to show. */
export interface Run {
  entries: Entry[];
  faults: FaultWindow[];
  deliveries: Delivery[];
  /** The fault kinds the schedule is to inject, each at least once. */
  kinds: string[];
  /** Per operation, the successes it must have outside every fault window. */
  minimums: Partial<Record<Operation, number>>;
}

const grants = new Set(['code', 'refresh', 'reuse']);

function byChain(entries: Entry[]): Map<number, Entry[]> {
  const chains = new Map<number, Entry[]>();
  for (const entry of entries.toSorted((a, b) => a.seq - b.seq)) {
    if (entry.chain === undefined) continue;
    chains.set(entry.chain, [...(chains.get(entry.chain) ?? []), entry]);
  }
  return chains;
}

/** Each code and refresh token is accepted at most once, over the whole history. */
function acceptedTwice(entries: Entry[]): Violation[] {
  const accepted = new Map<string, Entry[]>();
  for (const entry of entries) {
    if (!grants.has(entry.op) || !entry.presented || entry.status !== 200) continue;
    accepted.set(entry.presented, [...(accepted.get(entry.presented) ?? []), entry]);
  }
  return [...accepted.values()]
    .filter((wins) => wins.length > 1)
    .map((wins) => ({
      rule: 'accepted twice',
      message: `a ${wins[0]?.op === 'code' ? 'code' : 'refresh token'} accepted ${wins.length} times`,
      excerpt: wins,
    }));
}

/** Acknowledged suspensions and secret revocations stay in force: their probes never get a 2xx. */
function acknowledgedWrites(entries: Entry[]): Violation[] {
  return entries
    .filter((entry) => entry.acknowledged && is2xx(entry))
    .map((entry) => ({
      rule: 'success after an acknowledged end',
      message: `${entry.op} answered ${entry.status} after ${entry.acknowledged?.write} was acknowledged (#${entry.acknowledged?.seq})`,
      excerpt: entries.filter((each) => each.seq === entry.acknowledged?.seq || each.seq === entry.seq),
    }));
}

/** How a chain's family ended, as far as its client can know. */
interface ChainState {
  ended: { how: 'revocation' | 'reuse'; at: Entry } | null;
  /** An unknown outcome may have ended it: a revocation or a reuse with no answer, or a retry of a token whose use had none. */
  possiblyEnded: Entry | null;
  /** Its token was refused (the chain stopped using it): the other rules judge whether it should have been. */
  refused: Entry | null;
}

/** The end and single-use rules within one chain, walked in order (a chain has one request in flight at a time). */
function checkChain(chain: number, entries: Entry[], verdict: Verdict): ChainState {
  const state: ChainState = { ended: null, possiblyEnded: null, refused: null };
  const issued = new Set<string>();
  const presented = new Set<string>();
  const unanswered = new Set<string>();
  const violation = (rule: Rule, message: string, at: Entry) =>
    verdict.violations.push({
      rule,
      message: `chain ${chain}: ${message}`,
      excerpt: entries.filter((e) => e.seq <= at.seq),
    });
  for (const entry of entries) {
    if (state.ended && is2xx(entry) && entry.op !== 'revoke' && entry.start >= state.ended.at.end) {
      violation(
        'success after an acknowledged end',
        `${entry.op} answered ${entry.status} after the family ended by ${state.ended.how}`,
        entry,
      );
    }
    if (entry.op === 'revoke') {
      if (entry.status === 200) state.ended ??= { how: 'revocation', at: entry };
      if (entry.status === null) state.possiblyEnded ??= entry;
      continue;
    }
    if (!grants.has(entry.op) || !entry.presented) continue;
    const token = entry.presented;
    // Presenting again a token whose earlier use got no answer may be a reuse.
    if (unanswered.has(token)) state.possiblyEnded ??= entry;
    if (entry.status === null) {
      unanswered.add(token);
      if (entry.op === 'reuse') state.possiblyEnded ??= entry;
    } else if (entry.status === 200) {
      if (entry.received?.refresh) issued.add(entry.received.refresh);
    } else if (invalidGrant(entry)) {
      if (entry.op === 'reuse') state.ended ??= { how: 'reuse', at: entry };
      else if (state.ended) {
        // expected: the family is over
      } else if (state.possiblyEnded) {
        verdict.unknowns.push({
          message: `chain ${chain}: ${entry.op} refused with invalid_grant after an unknown outcome (${state.possiblyEnded.op} #${state.possiblyEnded.seq} got no answer or was a retry of one)`,
          excerpt: entries.filter((e) => e.seq <= entry.seq),
        });
      } else if (issued.has(token) && !presented.has(token)) {
        violation(
          'acknowledged rotation lost',
          'a refresh token received in a 200 was refused the first time it was presented',
          entry,
        );
      } else {
        violation(
          'family ended without a real reuse',
          `the current ${entry.op === 'code' ? 'code' : 'refresh token'} was refused with invalid_grant, with no reuse or revocation before`,
          entry,
        );
      }
    }
    if (entry.status !== null && entry.status !== 200 && entry.status < 500) state.refused ??= entry;
    presented.add(token);
  }
  return state;
}

/** A family nothing ended (not even possibly) must still refresh and answer /me at the run's end. */
function liveAtTheEnd(chain: number, entries: Entry[], state: ChainState): Violation | null {
  if (!entries.some((entry) => entry.op === 'code' && entry.status === 200)) return null;
  if (state.ended || state.possiblyEnded || state.refused) return null;
  const finals = entries.filter((entry) => entry.final);
  const worked = (op: Operation) => finals.some((entry) => entry.op === op && entry.status === 200);
  if (worked('refresh') && worked('me')) return null;
  const what = finals.length
    ? finals.map((entry) => `${entry.op} ${entry.status ?? 'no answer'}`).join(', ')
    : 'never checked';
  return { rule: 'live family unusable at the end', message: `chain ${chain}: ${what}`, excerpt: entries };
}

/** The consent events the history promises: consent.granted for each consent a code redeemed, consent.revoked for each acknowledged end. */
export function expectedEvents(entries: Entry[]): { type: string; consentId: string; chain: number }[] {
  const expected: { type: string; consentId: string; chain: number }[] = [];
  for (const [chain, chainEntries] of byChain(entries)) {
    const consentId = consentOf(chainEntries);
    if (!consentId) continue;
    expected.push({ type: 'consent.granted', consentId, chain });
    const ended = chainEntries.some(
      (entry) => (entry.op === 'revoke' && entry.status === 200) || (entry.op === 'reuse' && invalidGrant(entry)),
    );
    if (ended) expected.push({ type: 'consent.revoked', consentId, chain });
  }
  return expected;
}

const consentOf = (chainEntries: Entry[]) =>
  chainEntries.find((entry) => entry.op === 'code' && entry.status === 200)?.received?.consent;

/** Every promised event arrived, once; no consent.revoked arrived that nothing in the history explains. */
function checkEvents(entries: Entry[], deliveries: Delivery[], states: Map<number, ChainState>): Violation[] {
  const violations: Violation[] = [];
  const rule = 'consent event missing or duplicated';
  const ids = new Map<string, Set<string>>();
  for (const delivery of deliveries) {
    const key = `${delivery.type} ${delivery.consentId}`;
    ids.set(key, (ids.get(key) ?? new Set()).add(delivery.webhookId));
    if (!delivery.signatureValid) {
      violations.push({ rule, message: `${key} delivered with a signature that does not verify`, excerpt: [] });
    }
  }
  const chains = byChain(entries);
  for (const { type, consentId, chain } of expectedEvents(entries)) {
    if (!ids.has(`${type} ${consentId}`)) {
      violations.push({ rule, message: `chain ${chain}: ${type} never delivered`, excerpt: chains.get(chain) ?? [] });
    }
  }
  for (const [key, webhookIds] of ids) {
    if (webhookIds.size > 1) {
      violations.push({
        rule,
        message: `${key} delivered under ${webhookIds.size} different webhook-ids`,
        excerpt: [],
      });
    }
  }
  const chainOf = new Map([...chains].map(([chain, chainEntries]) => [consentOf(chainEntries), chain]));
  for (const key of ids.keys()) {
    const [type, consentId] = key.split(' ');
    if (type !== 'consent.revoked') continue;
    const chain = chainOf.get(consentId);
    const state = chain === undefined ? undefined : states.get(chain);
    if (state && (state.ended || state.possiblyEnded || state.refused)) continue;
    violations.push({
      rule: 'consent.revoked unexplained',
      message: `${key} arrived, but ${chain === undefined ? 'no chain redeemed that consent' : `chain ${chain} never ended its family`}`,
      excerpt: chain === undefined ? [] : (chains.get(chain) ?? []),
    });
  }
  return violations;
}

export function check(run: Run): Verdict {
  const verdict: Verdict = {
    violations: [...acceptedTwice(run.entries), ...acknowledgedWrites(run.entries)],
    unknowns: [],
  };
  const states = new Map<number, ChainState>();
  for (const [chain, chainEntries] of byChain(run.entries)) {
    const state = checkChain(chain, chainEntries, verdict);
    states.set(chain, state);
    const unusable = liveAtTheEnd(chain, chainEntries, state);
    if (unusable) verdict.violations.push(unusable);
  }
  verdict.violations.push(...checkEvents(run.entries, run.deliveries, states));
  verdict.violations.push(...obligations(run, attribute(run.entries, run.faults)));
  return verdict;
}
