// The soak's tables (markdown): each fault's window, and per operation the span of its failed
// requests that fault explains; the counts per operation; the availability outside every window.
import { ruleNames, type Verdict } from './checker.ts';
import { type Entry, type FaultWindow, failed, type Operation } from './history.ts';

/** How long after a fault's end a failed request is still put down to it (reconnects, caches). */
export const settleMs = 4_000;

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const percent = (ok: number, total: number) => (total ? `${((100 * ok) / total).toFixed(2)}%` : '-');

export interface Attribution {
  /** Failed requests by the fault they are put down to (index into faults). */
  byFault: Map<number, Entry[]>;
  /** Failed requests no fault explains. */
  outside: Entry[];
  /** Each fault's window: from its start to its end or its last failed request, whichever is later. */
  windows: { start: number; end: number }[];
}

/** Puts each failed request down to the latest fault it overlaps (with settleMs after the fault's end). */
export function attribute(entries: Entry[], faults: FaultWindow[]): Attribution {
  const byFault = new Map<number, Entry[]>();
  const outside: Entry[] = [];
  for (const entry of entries.filter(failed)) {
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
  return { byFault, outside, windows };
}

function describeFailure(entry: Entry): string {
  return entry.status === null
    ? `no answer (${entry.error})`
    : `${entry.status}${entry.error ? ` ${entry.error}` : ''}`;
}

export function faultTable(entries: Entry[], faults: FaultWindow[], attribution: Attribution): string[] {
  const lines = [
    '| # | fault | what was done | start | end | slowest request in it | failed requests: per operation, first to last (count; answers) |',
    '|---|---|---|---|---|---|---|',
  ];
  faults.forEach((fault, index) => {
    const failures = attribution.byFault.get(index) ?? [];
    const ops = [...new Set(failures.map((entry) => entry.op))];
    const perOp = ops.map((op) => {
      const mine = failures.filter((entry) => entry.op === op);
      const first = Math.min(...mine.map((entry) => entry.start));
      const last = Math.max(...mine.map((entry) => entry.end));
      const answers = [...new Set(mine.map(describeFailure))].slice(0, 3).join(', ');
      return `${op} ${seconds(first)}–${seconds(last)} (${mine.length}; ${answers})`;
    });
    const window = attribution.windows[index] as { start: number; end: number };
    const slowest = entries
      .filter((entry) => overlaps(entry, window))
      .reduce<Entry | null>(
        (slow, entry) => (!slow || entry.end - entry.start > slow.end - slow.start ? entry : slow),
        null,
      );
    const slow = slowest ? `${slowest.op} ${seconds(slowest.end - slowest.start)}` : '-';
    lines.push(
      `| ${index + 1} | ${fault.name} | ${fault.detail} | ${seconds(fault.start)} | ${seconds(fault.end)} | ${slow} | ${perOp.join('<br>') || 'none'} |`,
    );
  });
  return lines;
}

const overlaps = (entry: Entry, window: { start: number; end: number }) =>
  entry.end >= window.start && entry.start <= window.end;

export function operationTable(entries: Entry[], attribution: Attribution): string[] {
  const ops = [...new Set(entries.map((entry) => entry.op))] as Operation[];
  const lines = [
    '| operation | requests | as expected | failed: 5xx | no answer | other | off-contract answers | outside the windows: requests | availability |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  const row = (name: string, mine: Entry[]) => {
    const bad = mine.filter(failed);
    const outside = mine.filter((entry) => !attribution.windows.some((window) => overlaps(entry, window)));
    const outsideOk = outside.filter((entry) => !failed(entry)).length;
    lines.push(
      `| ${name} | ${mine.length} | ${mine.length - bad.length} | ${bad.filter((e) => (e.status ?? 0) >= 500).length} | ` +
        `${bad.filter((e) => e.status === null).length} | ${bad.filter((e) => e.status !== null && e.status < 500).length} | ` +
        `${mine.filter((e) => e.nonconforming).length} | ${outside.length} | ${percent(outsideOk, outside.length)} |`,
    );
  };
  for (const op of ops)
    row(
      op,
      entries.filter((entry) => entry.op === op),
    );
  row('**all**', entries);
  return lines;
}

/** A request as a line of an excerpt: no token, only a short fingerprint of what was presented. */
export function excerptLine(entry: Entry, fingerprint: (token: string) => string): string {
  const presented = entry.presented ? ` presented ${fingerprint(entry.presented)}` : '';
  const received = entry.received?.refresh ? ` received ${fingerprint(entry.received.refresh)}` : '';
  const answer = entry.status === null ? `no answer (${entry.error})` : `${entry.status} ${entry.error ?? ''}`.trim();
  const requestId = entry.requestId ? ` [${entry.requestId}]` : '';
  return `    #${entry.seq} ${seconds(entry.start)}–${seconds(entry.end)} ${entry.op}${presented} → ${answer}${received}${requestId}`;
}

export function verdictLines(verdict: Verdict, fingerprint: (token: string) => string): string[] {
  const lines: string[] = [];
  for (const unknown of verdict.unknowns) {
    lines.push(`unknown outcome (not a failure): ${unknown.message}`);
    lines.push(...unknown.excerpt.slice(-6).map((entry) => excerptLine(entry, fingerprint)));
  }
  lines.push(verdict.violations.length ? `FAIL: ${verdict.violations.length} violation(s)` : 'PASS: no violation');
  for (const violation of verdict.violations) {
    lines.push(`  rule ${violation.rule} (${ruleNames[violation.rule]}): ${violation.message}`);
    lines.push(...violation.excerpt.slice(-8).map((entry) => excerptLine(entry, fingerprint)));
  }
  return lines;
}
