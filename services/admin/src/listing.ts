// What the reading commands (audit, find-accounts, find-players, show-*) share: the page options
// (--limit, --cursor), a table a terminal shows aligned, and the line that names the next page.
import { pageLimits } from '@devplat/domain/audit';
import { type Invocation, type Io, type OptionSpec, stringOption, usageError } from './command.ts';

export const pageOptions: OptionSpec[] = [
  stringOption('limit', '<N>', `Rows per page, 1 to ${pageLimits.max}; default ${pageLimits.default}`),
  stringOption('cursor', '<cursor>', 'The next page: the cursor the page before printed (with the same filters)'),
];

/** A string option's value, or undefined when not given. */
export function text(invocation: Invocation, name: string): string | undefined {
  const value = invocation.options[name];
  return typeof value === 'string' ? value : undefined;
}

/** --limit and --cursor; the domain refuses a limit out of range or a cursor it did not give. */
export function pageOf(invocation: Invocation): { limit?: number; cursor?: string } {
  const limit = text(invocation, 'limit');
  const cursor = text(invocation, 'cursor');
  if (limit !== undefined && !/^\d+$/.test(limit.trim())) {
    throw usageError(`--limit must be a whole number from 1 to ${pageLimits.max} (got "${limit}")`);
  }
  return {
    ...(limit !== undefined && { limit: Number(limit.trim()) }),
    ...(cursor !== undefined && { cursor: cursor.trim() }),
  };
}

/** Rows under their headings, each column as wide as its widest cell; the last one is not padded. */
export function table(headings: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headings.map((heading, column) =>
    Math.max(heading.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column] ?? 0)))
      .join('  ')
      .trimEnd();
  return `${[headings, ...rows].map(line).join('\n')}\n`;
}

/** A page as a table, or a sentence when nothing matched, then where the next page starts. */
export function printPage(
  io: Io,
  found: { headings: readonly string[]; rows: readonly (readonly string[])[]; none: string },
  nextCursor: string | null,
): void {
  io.out(found.rows.length === 0 ? `${found.none}\n` : table(found.headings, found.rows));
  io.out(nextCursor ? `next page: --cursor ${nextCursor}\n` : 'last page\n');
}

/** A cell for a time: ISO 8601 in UTC, to the millisecond, as the records keep it. */
export const time = (date: Date): string => date.toISOString();

/** Counts by status, in words: "3 (2 active, 1 disabled)". */
export function countsByStatus(counts: Record<string, number>): string {
  const total = Object.values(counts).reduce((sum, n) => sum + n, 0);
  const parts = Object.entries(counts)
    .filter(([, n]) => n > 0)
    .map(([status, n]) => `${n} ${status}`);
  return parts.length === 0 ? '0' : `${total} (${parts.join(', ')})`;
}
