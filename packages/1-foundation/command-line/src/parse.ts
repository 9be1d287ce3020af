// From argv to a command, for both command lines: the command's words come first (global options
// may stand anywhere), then node:util parseArgs reads that command's options, strictly. What is
// wrong is a UsageProblem, which the program words (Program.words).
import { parseArgs } from 'node:util';
import { type CommandSpec, commandName, type OptionSpec, type OptionValues } from './spec.ts';
import { closest } from './suggest.ts';
import { UsageError, type UsageProblem } from './usage-error.ts';

export interface Program<Context> {
  commands: readonly CommandSpec<Context>[];
  /** Options every command takes, anywhere on the line. */
  globalOptions?: readonly OptionSpec[];
  /** Global options after which nothing else is checked (help, version): the program answers them. */
  answeredOptions?: readonly string[];
  /** The global option asking for help: with it, an unknown command word is no error (help answers). */
  helpOption?: string;
  /** Whether a missing required option is refused here (the CLI's); else the command checks it. */
  checksRequired: boolean;
  /** Whether arguments are trimmed, and one of blanks is missing (the admin's). */
  trimsArguments?: boolean;
  /** Options refused wherever they stand (the CLI's: a secret never goes on the command line). */
  refusedOptions?: readonly string[];
  /** The program's words for a problem, for the command of `path`. */
  words(problem: UsageProblem, path: string[]): string;
}

export interface ParsedLine<Context> {
  /** The command named, when the words name one. */
  spec?: CommandSpec<Context>;
  /** The command words recognised: a command's, a group's ("apps"), or none. */
  path: string[];
  /** Positional arguments by name. */
  args: Record<string, string>;
  /** The words given to a variadic argument. */
  rest: string[];
  options: OptionValues;
}

const startsWith = (path: string[], prefix: string[]) => prefix.every((word, index) => path[index] === word);
const sameWords = (a: string[], b: string[]) => a.join(' ') === b.join(' ');

const names = (option: OptionSpec) => [`--${option.name}`, ...(option.short ? [`-${option.short}`] : [])];

/** How many tokens a global option at argv[index] spans (0: it is none). */
function globalOptionLength(argv: string[], index: number, globals: readonly OptionSpec[]): number {
  const token = argv[index] as string;
  for (const option of globals) {
    if (names(option).includes(token)) return option.type === 'string' ? 2 : 1;
    if (option.type === 'string' && token.startsWith(`--${option.name}=`)) return 1;
  }
  return 0;
}

export function parseCommandLine<Context>(argv: string[], program: Program<Context>): ParsedLine<Context> {
  const { commands, globalOptions = [] } = program;
  function fail(problem: UsageProblem, path: string[]): never {
    throw new UsageError(program.words(problem, path), path, problem);
  }
  const path: string[] = [];
  const wordIndexes = new Set<number>();
  let unknownWord: string | undefined;
  for (let index = 0; index < argv.length; ) {
    const token = argv[index] as string;
    const globalLength = globalOptionLength(argv, index, globalOptions);
    if (globalLength > 0) {
      index += globalLength;
      continue;
    }
    if (token.startsWith('-')) break;
    const candidate = [...path, token];
    if (commands.some((spec) => startsWith(spec.path, candidate))) {
      path.push(token);
      wordIndexes.add(index);
      index += 1;
      continue;
    }
    if (!commands.some((spec) => sameWords(spec.path, path))) unknownWord = token;
    break;
  }
  const spec = commands.find((command) => sameWords(command.path, path));
  const rest = argv.filter((_, index) => !wordIndexes.has(index));
  const helpOption = globalOptions.find((option) => option.name === program.helpOption);
  const asksHelp = helpOption !== undefined && names(helpOption).some((name) => rest.includes(name));

  if (unknownWord !== undefined && !asksHelp) {
    const typed = [...path, unknownWord].join(' ');
    const suggestion = closest(typed, commands.map(commandName));
    fail({ kind: 'unknown-command', typed, ...(suggestion && { suggestion }) }, path);
  }
  for (const token of rest) {
    if (token === '--') break;
    const name = /^--([^=]+)/.exec(token)?.[1];
    if (name !== undefined && program.refusedOptions?.includes(name))
      fail({ kind: 'refused-option', option: name }, path);
  }

  const optionSpecs = [...globalOptions, ...(spec?.options ?? [])];
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(
        optionSpecs.map((option) => [
          option.name,
          { type: option.type, ...(option.short ? { short: option.short } : {}), multiple: option.multiple ?? false },
        ]),
      ),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    return fail(parseProblem(error, optionSpecs), path);
  }
  const options = parsed.values as OptionValues;
  const line: ParsedLine<Context> = { path, args: {}, rest: [], options, ...(spec ? { spec } : {}) };
  const stopped = program.answeredOptions?.some((name) => options[name] === true) ?? false;
  if (!spec || stopped) return line;

  const positionals = [...parsed.positionals];
  for (const argument of spec.args ?? []) {
    if (argument.variadic) {
      line.rest = positionals.splice(0);
      break;
    }
    const given = positionals.shift();
    const value = program.trimsArguments ? given?.trim() : given;
    if (value === undefined || (program.trimsArguments && value === '')) {
      fail({ kind: 'missing-argument', argument: argument.name }, path);
    }
    const { choices } = argument;
    if (choices && !choices.includes(value)) {
      fail({ kind: 'argument-not-a-choice', argument: argument.name, value, choices }, path);
    }
    line.args[argument.name] = value;
  }
  if (positionals.length > 0) fail({ kind: 'unexpected-argument', value: positionals[0] as string }, path);
  for (const option of spec.options ?? []) {
    const value = options[option.name];
    if (program.checksRequired && option.required && (value === undefined || (Array.isArray(value) && !value.length))) {
      fail({ kind: 'missing-option', option: option.name }, path);
    }
    const given = value === undefined ? [] : Array.isArray(value) ? value : [value];
    for (const item of given) {
      if (option.choices && typeof item === 'string' && !option.choices.includes(item)) {
        fail({ kind: 'option-not-a-choice', option: option.name, value: item, choices: option.choices }, path);
      }
    }
  }
  return line;
}

/** parseArgs's errors, written for programmers, as the problem a person made. */
function parseProblem(error: unknown, options: OptionSpec[]): UsageProblem {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const option = /'(-[^' ]+)/.exec(message)?.[1] ?? '';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const suggestion = closest(
      option.replace(/^-+/, ''),
      options.map((each) => each.name),
    );
    return { kind: 'unknown-option', option, ...(suggestion && { suggestion }) };
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return message.includes('does not take an argument')
      ? { kind: 'option-takes-no-value', option }
      : { kind: 'option-needs-value', option };
  }
  return { kind: 'unreadable', message };
}
