// The parts every help page of both command lines is made of, from the command table: usage lines,
// option and argument tables in aligned columns, paragraphs wrapped to the terminal's width. Each
// program lays its pages out of them (the CLI in sections, the admin command in its short form).
import type { ArgumentSpec, CommandSpec, OptionSpec } from './spec.ts';

/** Rows of cells, each column as wide as its widest cell, two spaces apart; the last column runs on. */
export function alignColumns(rows: string[][]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    for (const [index, cell] of row.entries()) widths[index] = Math.max(widths[index] ?? 0, cell.length);
  }
  return rows.map((row) =>
    row
      .map((cell, index) => (index === row.length - 1 ? cell : cell.padEnd(widths[index] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
}

/** A paragraph broken into lines of at most `width` characters. */
export function wrap(paragraph: string, width = 100): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of paragraph.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  return line ? [...lines, line] : lines;
}

const placeholder = (option: OptionSpec) => option.value ?? '<value>';

/** "-h, --help", "--email <email>": an option as its table names it. */
export function optionLabel(option: OptionSpec): string {
  const name = `${option.short ? `-${option.short}, ` : ''}--${option.name}`;
  return option.type === 'string' ? `${name} ${placeholder(option)}` : name;
}

/** An option in a usage line: bare when required, else in brackets; "..." when repeatable. */
function optionUsage(option: OptionSpec): string {
  const text = option.type === 'string' ? `--${option.name} ${placeholder(option)}` : `--${option.name}`;
  if (option.required) return option.multiple ? `${text}...` : text;
  return option.multiple ? `[${text}]...` : `[${text}]`;
}

export const argumentUsage = (argument: ArgumentSpec): string =>
  argument.variadic ? `[${argument.name}...]` : `<${argument.name}>`;

/** `<invoke> <words> <arguments> <options>`: how the command is typed. */
export function usageLine(invoke: string, spec: Pick<CommandSpec<never>, 'path' | 'args' | 'options'>): string {
  const args = (spec.args ?? []).map(argumentUsage);
  const options = (spec.options ?? []).map(optionUsage);
  return [invoke, ...spec.path, ...args, ...options].join(' ');
}

/** Each option with what it does, and whether it is repeatable or required. */
export const optionRows = (options: readonly OptionSpec[]): string[] =>
  alignColumns(
    options.map((option) => [
      optionLabel(option),
      option.description + (option.multiple ? ' (repeatable)' : '') + (option.required ? ' (required)' : ''),
    ]),
  );

/** Each argument with what it is. */
export const argumentRows = (args: readonly ArgumentSpec[]): string[] =>
  alignColumns(args.map((argument) => [argumentUsage(argument), argument.description ?? '']));
