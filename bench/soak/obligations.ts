// What a run must have shown, besides the contract's rules (checker.ts):
//   - fault not shown: a kind the schedule promised was never injected, or its injection failed;
//   - window past its bound: a fault's failed requests (503s, no answer) went on longer after its
//     start or end than the bound stated for it (bounds.ts, docs/operating.md);
//   - failure outside every window: a 503 or no answer that no fault explains;
//   - off-contract answer: anything but the operation's success, its documented refusals, or a
//     503 inside a window (a 500, a 429, an unexpected 401, a body the contract document refuses);
//     a chain's 2xx and invalid_grant are the single-use rules' to judge;
//   - too few successes: an operation with fewer successes outside every window than its minimum
//     (a consent screen that never works leaves the chains with nothing to show).
import type { Rule, Run, Violation } from './checker.ts';
import { type Entry, type FaultWindow, failed, invalidGrant, is2xx, type Operation } from './history.ts';

/** How long after a fault's end a failed request is still put down to it (reconnects, caches). */
export const settleMs = 4_000;

export interface Attribution {
  /** Failed requests by the fault they are put down to (index into faults). */
  byFault: Map<number, Entry[]>;
  /** 503s and unanswered requests no fault explains. */
  outside: Entry[];
  /** Failed requests no fault could explain: answers off the contract. */
  offContract: Entry[];
  /** Each fault's window: from its start to its end or its last failed request, whichever is later. */
  windows: { start: number; end: number }[];
}

/** A 503 or no answer: what a fault may cost. Anything else unexpected is off the contract. */
const unavailable = (entry: Entry) => entry.status === null || entry.status === 503;
/** A chain's success or invalid_grant where another was expected: the single-use rules judge it. */
const judgedBySingleUse = (entry: Entry) =>
  (entry.chain !== undefined || entry.acknowledged !== undefined) && (is2xx(entry) || invalidGrant(entry));

/** Puts each failed request down to the latest fault it overlaps (with settleMs after the fault's end). */
export function attribute(entries: Entry[], faults: FaultWindow[]): Attribution {
  const byFault = new Map<number, Entry[]>();
  const outside: Entry[] = [];
  const offContract: Entry[] = [];
  for (const entry of entries) {
    if (!failed(entry)) {
      if (entry.nonconforming) offContract.push(entry);
      continue;
    }
    if (judgedBySingleUse(entry)) continue;
    if (!unavailable(entry)) {
      offContract.push(entry);
      continue;
    }
    let found = -1;
    faults.forEach((fault, index) => {
      if (entry.end >= fault.start && entry.start <= fault.end + settleMs) found = index;
    });
    if (found < 0) outside.push(entry);
    else byFault.set(found, [...(byFault.get(found) ?? []), entry]);
  }
  const windows = faults.map((fault, index) => ({
    start: fault.start,
    end: Math.max(fault.end, ...(byFault.get(index) ?? []).map((entry) => entry.end)),
  }));
  return { byFault, outside, offContract, windows };
}

export const overlaps = (entry: Entry, window: { start: number; end: number }) =>
  entry.end >= window.start && entry.start <= window.end;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
/** What a request got, as the report and the verdict word it: `503 SERVICE_UNAVAILABLE`, `no answer (ECONNRESET)`. */
export const answerOf = (entry: Entry) =>
  entry.status === null ? `no answer (${entry.error})` : `${entry.status}${entry.error ? ` ${entry.error}` : ''}`;

/** How far past its anchor (the fault's start or end) a fault's last failed request ended; null if none failed. */
export function overrun(fault: FaultWindow, failures: Entry[]): number | null {
  if (!failures.length) return null;
  const anchor = fault.bound.from === 'start' ? fault.start : fault.end;
  return Math.max(...failures.map((entry) => entry.end)) - anchor;
}

function faultsShown(run: Run): Violation[] {
  const violations: Violation[] = [];
  const rule: Rule = 'fault not shown';
  for (const kind of run.kinds) {
    const windows = run.faults.filter((fault) => fault.name === kind);
    if (!windows.length) violations.push({ rule, message: `${kind}: never injected`, excerpt: [] });
    for (const fault of windows.filter((each) => each.failed)) {
      violations.push({ rule, message: `${kind} at ${seconds(fault.start)}: ${fault.detail}`, excerpt: [] });
    }
  }
  return violations;
}

function windowsBounded(faults: FaultWindow[], attribution: Attribution): Violation[] {
  return faults.flatMap((fault, index) => {
    const failures = attribution.byFault.get(index) ?? [];
    const past = overrun(fault, failures);
    if (past === null || past <= fault.bound.ms) return [];
    const bound =
      fault.bound.ms === 0 && fault.bound.from === 'start'
        ? 'nothing may fail'
        : `bound ${seconds(fault.bound.ms)} after its ${fault.bound.from}`;
    return [
      {
        rule: 'window past its bound' as const,
        message: `${fault.name} at ${seconds(fault.start)}: ${failures.length} failed, the last ${seconds(past)} after its ${fault.bound.from} (${bound})`,
        excerpt: failures,
      },
    ];
  });
}

function enoughSuccesses(run: Run, attribution: Attribution): Violation[] {
  const violations: Violation[] = [];
  for (const [op, minimum] of Object.entries(run.minimums) as [Operation, number][]) {
    const successes = run.entries.filter(
      (entry) => entry.op === op && !failed(entry) && !attribution.windows.some((window) => overlaps(entry, window)),
    ).length;
    if (successes < minimum) {
      violations.push({
        rule: 'too few successes',
        message: `${op}: ${successes} outside every fault window (at least ${minimum})`,
        excerpt: [],
      });
    }
  }
  return violations;
}

export function obligations(run: Run, attribution: Attribution): Violation[] {
  const each = (rule: Rule, entries: Entry[], what: (entry: Entry) => string): Violation[] =>
    entries.map((entry) => ({
      rule,
      message: `#${entry.seq} at ${seconds(entry.start)}: ${what(entry)}`,
      excerpt: [entry],
    }));
  return [
    ...faultsShown(run),
    ...windowsBounded(run.faults, attribution),
    ...each('failure outside every window', attribution.outside, (entry) => `${entry.op} → ${answerOf(entry)}`),
    ...each('off-contract answer', attribution.offContract, (entry) =>
      entry.nonconforming
        ? `${entry.op} → ${answerOf(entry)}: ${entry.nonconforming.join('; ')}`
        : `${entry.op} → ${answerOf(entry)} (expected ${entry.expect.join(' or ')})`,
    ),
    ...enoughSuccesses(run, attribution),
  ];
}
