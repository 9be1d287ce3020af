// How answers reach the terminal: with --json, exactly the API's JSON on stdout; otherwise short
// aligned tables and key-value lines for a person, with notes and warnings on stderr.
import { alignColumns } from '@devplat/command-line';
import type { Io } from './io.ts';

export interface Output {
  readonly json: boolean;
  /** With --json, the body as the API sent it; without, runs `human`. */
  answer(body: string, human: () => void): void;
  /** A line for a person (nothing with --json). */
  line(text?: string): void;
  /** A line for a person on stderr: progress, notes and warnings (nothing with --json). */
  note(text: string): void;
  /** A machine document of the CLI's own making (with --json). */
  document(value: unknown): void;
  table(headers: string[], rows: string[][]): void;
  fields(pairs: [string, string][], indent?: string): void;
}

export function createOutput(io: Io, json: boolean): Output {
  const line = (text = '') => {
    if (!json) io.stdout.write(`${text}\n`);
  };
  return {
    json,
    answer(body, human) {
      if (!json) return human();
      if (body !== '') io.stdout.write(body.endsWith('\n') ? body : `${body}\n`);
    },
    line,
    note(text) {
      if (!json) io.stderr.write(`${text}\n`);
    },
    document(value) {
      io.stdout.write(`${JSON.stringify(value)}\n`);
    },
    table(headers, rows) {
      for (const text of alignColumns([headers.map((header) => header.toUpperCase()), ...rows])) line(text);
    },
    fields(pairs, indent = '') {
      const width = Math.max(...pairs.map(([label]) => label.length));
      for (const [label, value] of pairs) line(`${indent}${label.padEnd(width)}  ${value}`.trimEnd());
    },
  };
}

/** A list for a person: its table, or, when it is empty, the line that says so (and how to add one). */
export function tableOrNone(out: Output, none: string, headers: string[], rows: string[][]): void {
  if (rows.length === 0) out.line(none);
  else out.table(headers, rows);
}

/** An API timestamp for a table: to the second, in UTC. */
export function when(iso: string | null | undefined): string {
  if (!iso) return '-';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace('T', ' ')}Z`;
}

export const orDash = (value: string | number | null | undefined) =>
  value === null || value === undefined || value === '' ? '-' : String(value);
