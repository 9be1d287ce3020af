// Reads a soak's history and names every broken promise of the contract's single-use rules:
//   1. a refresh token or code accepted (200) twice;
//   2. a 2xx for a chain (token, /me) after its family was ended and that was acknowledged (a
//      revocation answered 200, or a deliberate reuse answered invalid_grant);
//   3. an acknowledged rotation lost: a refresh token received in a 200, refused with invalid_grant
//      the first time it is presented, though nothing ended the family;
//   4. a family ended without a real reuse: a chain's current token (or a fresh code) refused with
//      invalid_grant though the chain never re-presented a rotated token and was not revoked;
//   5. a consent event missing, or delivered twice under different webhook-ids.
// A request with no answer is an unknown outcome: what it presented may have been used (or, for a
// revocation, the family may have ended), so a later refusal it explains is noted, not failed. A
// 503 is a definite answer: nothing was used up.
import type { Delivery, Entry } from './history.ts';

export interface Violation {
  rule: 1 | 2 | 3 | 4 | 5;
  message: string;
  /** The requests that show it (of one chain, or of one token). */
  excerpt: Entry[];
}

export interface Verdict {
  violations: Violation[];
  /** Refusals an unknown outcome explains: reported, not failed. */
  unknowns: { message: string; excerpt: Entry[] }[];
}

export const ruleNames: Record<Violation['rule'], string> = {
  1: 'accepted twice',
  2: '2xx after an acknowledged end',
  3: 'acknowledged rotation lost',
  4: 'family ended without a real reuse',
  5: 'consent event missing or duplicated',
};

const grants = new Set(['code', 'refresh', 'reuse']);
const is2xx = (entry: Entry) => entry.status !== null && entry.status >= 200 && entry.status < 300;
const invalidGrant = (entry: Entry) => entry.status === 400 && entry.error === 'invalid_grant';

function byChain(entries: Entry[]): Map<number, Entry[]> {
  const chains = new Map<number, Entry[]>();
  for (const entry of entries.toSorted((a, b) => a.seq - b.seq)) {
    if (entry.chain === undefined) continue;
    chains.set(entry.chain, [...(chains.get(entry.chain) ?? []), entry]);
  }
  return chains;
}

/** Rule 1, over the whole history: each code and refresh token is accepted at most once. */
function acceptedTwice(entries: Entry[]): Violation[] {
  const accepted = new Map<string, Entry[]>();
  for (const entry of entries) {
    if (!grants.has(entry.op) || !entry.presented || entry.status !== 200) continue;
    accepted.set(entry.presented, [...(accepted.get(entry.presented) ?? []), entry]);
  }
  return [...accepted.values()]
    .filter((wins) => wins.length > 1)
    .map((wins) => ({
      rule: 1,
      message: `a ${wins[0]?.op === 'code' ? 'code' : 'refresh token'} accepted ${wins.length} times`,
      excerpt: wins,
    }));
}

/** How a chain's family ended, as far as its client can know. */
interface ChainState {
  ended: { how: 'revocation' | 'reuse'; at: Entry } | null;
  /** An unknown outcome may have ended it: a revocation or a reuse with no answer, or a retry of a token whose use had none. */
  possiblyEnded: Entry | null;
}

/** Rules 2, 3 and 4 within one chain, walked in order (a chain has one request in flight at a time). */
function checkChain(chain: number, entries: Entry[], verdict: Verdict): ChainState {
  const state: ChainState = { ended: null, possiblyEnded: null };
  const issued = new Set<string>();
  const presented = new Set<string>();
  const unanswered = new Set<string>();
  const violation = (rule: Violation['rule'], message: string, at: Entry) =>
    verdict.violations.push({
      rule,
      message: `chain ${chain}: ${message}`,
      excerpt: entries.filter((e) => e.seq <= at.seq),
    });
  for (const entry of entries) {
    if (state.ended && is2xx(entry) && entry.op !== 'revoke' && entry.start >= state.ended.at.end) {
      violation(2, `${entry.op} answered ${entry.status} after the family ended by ${state.ended.how}`, entry);
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
        violation(3, 'a refresh token received in a 200 was refused the first time it was presented', entry);
      } else {
        violation(
          4,
          `the current ${entry.op === 'code' ? 'code' : 'refresh token'} was refused with invalid_grant, with no reuse or revocation before`,
          entry,
        );
      }
    }
    presented.add(token);
  }
  return state;
}

/** The consent events the history promises: consent.granted for each consent a code redeemed, consent.revoked for each acknowledged end. */
export function expectedEvents(entries: Entry[]): { type: string; consentId: string; chain: number }[] {
  const expected: { type: string; consentId: string; chain: number }[] = [];
  for (const [chain, chainEntries] of byChain(entries)) {
    const consentId = chainEntries.find((entry) => entry.op === 'code' && entry.status === 200)?.received?.consent;
    if (!consentId) continue;
    expected.push({ type: 'consent.granted', consentId, chain });
    const ended = chainEntries.some(
      (entry) => (entry.op === 'revoke' && entry.status === 200) || (entry.op === 'reuse' && invalidGrant(entry)),
    );
    if (ended) expected.push({ type: 'consent.revoked', consentId, chain });
  }
  return expected;
}

/** Rule 5: every promised event arrived; no event arrived under two webhook-ids. */
function checkEvents(entries: Entry[], deliveries: Delivery[]): Violation[] {
  const violations: Violation[] = [];
  const ids = new Map<string, Set<string>>();
  for (const delivery of deliveries) {
    const key = `${delivery.type} ${delivery.consentId}`;
    ids.set(key, (ids.get(key) ?? new Set()).add(delivery.webhookId));
    if (!delivery.signatureValid) {
      violations.push({ rule: 5, message: `${key} delivered with a signature that does not verify`, excerpt: [] });
    }
  }
  const chains = byChain(entries);
  for (const { type, consentId, chain } of expectedEvents(entries)) {
    if (!ids.has(`${type} ${consentId}`)) {
      violations.push({
        rule: 5,
        message: `chain ${chain}: ${type} never delivered`,
        excerpt: chains.get(chain) ?? [],
      });
    }
  }
  for (const [key, webhookIds] of ids) {
    if (webhookIds.size > 1) {
      violations.push({
        rule: 5,
        message: `${key} delivered under ${webhookIds.size} different webhook-ids`,
        excerpt: [],
      });
    }
  }
  return violations;
}

export function check(entries: Entry[], deliveries: Delivery[]): Verdict {
  const verdict: Verdict = { violations: acceptedTwice(entries), unknowns: [] };
  for (const [chain, chainEntries] of byChain(entries)) checkChain(chain, chainEntries, verdict);
  verdict.violations.push(...checkEvents(entries, deliveries));
  verdict.violations.sort((a, b) => a.rule - b.rule);
  return verdict;
}
