// The soak's tables (markdown): each fault's window against its bound, and per operation the span
// of its failed requests that fault explains; the counts per operation; the availability outside
// every window; then the verdict, each violation named by its rule with the requests that show it.
import type { Verdict } from './checker.ts';
import { type Entry, type FaultWindow, failed, type Operation } from './history.ts';
import { type Attribution, answerOf, overlaps, overrun } from './obligations.ts';

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const percent = (ok: number, total: number) => (total ? `${((100 * ok) / total).toFixed(2)}%` : '-');

export const boundText = ({ bound }: Pick<FaultWindow, 'bound'>) =>
  bound.ms === 0 && bound.from === 'start' ? 'nothing may fail' : `≤ ${seconds(bound.ms)} after its ${bound.from}`;

export function faultTable(entries: Entry[], faults: FaultWindow[], attribution: Attribution): string[] {
  const lines = [
    '| # | fault | what was done | start | end | failing until (bound) | slowest request in it | failed requests: per operation, first to last (count; answers) |',
    '|---|---|---|---|---|---|---|---|',
  ];
  faults.forEach((fault, index) => {
    const failures = attribution.byFault.get(index) ?? [];
    const ops = [...new Set(failures.map((entry) => entry.op))];
    const perOp = ops.map((op) => {
      const mine = failures.filter((entry) => entry.op === op);
      const first = Math.min(...mine.map((entry) => entry.start));
      const last = Math.max(...mine.map((entry) => entry.end));
      const answers = [...new Set(mine.map(answerOf))].slice(0, 3).join(', ');
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
    const past = overrun(fault, failures);
    const until = `${past === null ? 'nothing failed' : `${seconds(past)} after its ${fault.bound.from}`} (${boundText(fault)})`;
    lines.push(
      `| ${index + 1} | ${fault.name} | ${fault.detail} | ${seconds(fault.start)} | ${seconds(fault.end)} | ${until} | ${slow} | ${perOp.join('<br>') || 'none'} |`,
    );
  });
  return lines;
}

/** Per fault kind: how often, its bound, the longest it cost, and its failed requests by operation. */
export function kindTable(kinds: string[], faults: FaultWindow[], attribution: Attribution): string[] {
  const lines = [
    '| fault | times | bound | longest: failing until | failed requests by operation (answers) |',
    '|---|---|---|---|---|',
  ];
  const observed = [...new Set(faults.filter((fault) => fault.observed).map((fault) => fault.name))];
  for (const kind of [...kinds, ...observed]) {
    const indexes = faults.flatMap((fault, index) => (fault.name === kind ? [index] : []));
    const first = faults[indexes[0] ?? -1];
    if (!first) {
      lines.push(`| ${kind} | 0 | - | - | - |`);
      continue;
    }
    const overruns = indexes.map((index) =>
      overrun(faults[index] as FaultWindow, attribution.byFault.get(index) ?? []),
    );
    const longest = Math.max(...overruns.map((each) => each ?? Number.NEGATIVE_INFINITY));
    const failures = indexes.flatMap((index) => attribution.byFault.get(index) ?? []);
    const perOp = Map.groupBy(failures, (entry) => entry.op);
    const ops = [...perOp]
      .toSorted((a, b) => b[1].length - a[1].length)
      .map(([op, mine]) => `${op} ${mine.length}`)
      .join(', ');
    const answers = [...new Set(failures.map(answerOf))].join(', ');
    lines.push(
      `| ${kind} | ${indexes.length} | ${boundText(first)} | ${Number.isFinite(longest) ? `${seconds(Math.max(0, longest))} after its ${first.bound.from}` : 'nothing failed'} | ${ops ? `${ops} (${answers})` : 'none'} |`,
    );
  }
  return lines;
}

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

/** A request as a line of an excerpt (the history holds fingerprints, never tokens). */
export function excerptLine(entry: Entry): string {
  const presented = entry.presented ? ` presented ${entry.presented.slice(0, 8)}` : '';
  const received = entry.received?.refresh ? ` received ${entry.received.refresh.slice(0, 8)}` : '';
  const requestId = entry.requestId ? ` [${entry.requestId}]` : '';
  return `    #${entry.seq} ${seconds(entry.start)}–${seconds(entry.end)} ${entry.op}${presented} → ${answerOf(entry)}${received}${requestId}`;
}

/** The verdict; its last line is PASS, or FAIL with the count of violations by rule. */
export function verdictLines(verdict: Verdict): string[] {
  const lines: string[] = [];
  for (const unknown of verdict.unknowns) {
    lines.push(`unknown outcome (not a failure): ${unknown.message}`);
    lines.push(...unknown.excerpt.slice(-6).map((entry) => excerptLine(entry)));
  }
  const byRule = Map.groupBy(verdict.violations, (violation) => violation.rule);
  for (const [rule, violations] of byRule) {
    // The first few of each rule in full: a broken rule is usually broken many times alike.
    for (const violation of violations.slice(0, 5)) {
      lines.push(`violation: ${rule}: ${violation.message}`);
      lines.push(...violation.excerpt.slice(-8).map((entry) => excerptLine(entry)));
    }
    if (violations.length > 5) lines.push(`violation: ${rule}: ${violations.length - 5} more`);
  }
  const counts = [...byRule].map(([rule, violations]) => `${rule} ×${violations.length}`);
  lines.push(verdict.violations.length ? `FAIL: ${counts.join('; ')}` : 'PASS: no violation');
  return lines;
}
