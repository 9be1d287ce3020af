// From argv to a command: the command's words come first (global options may stand anywhere), then
// node:util parseArgs reads the options of that command, strictly.
import { parseArgs } from 'node:util';
import { type CommandSpec, globalOptions, type OptionSpec, type OptionValues } from './command.ts';
import { UsageError } from './errors.ts';
import { closest } from './suggest.ts';

export interface Invocation {
  /** The command named, when the words name one. */
  spec?: CommandSpec;
  /** The command words recognised: a command's, a group's ("apps"), or none. */
  path: string[];
  args: Record<string, string>;
  /** The words given to a variadic argument (help's). */
  rest: string[];
  options: OptionValues;
  json: boolean;
  help: boolean;
  version: boolean;
  consoleUrl?: string;
}

const versionOption: OptionSpec = { name: 'version', type: 'boolean', description: 'Print the version' };

/** Options that would put a secret on the command line: what it is, and what to use instead. */
const refusedOptions: Record<string, { what: string; instead: string }> = {
  password: { what: 'a password', instead: '--password-stdin or DEVPLAT_PASSWORD, or type it when asked' },
  'client-secret': {
    what: 'a client secret',
    instead: '--client-secret-stdin or DEVPLAT_CLIENT_SECRET, or type it when asked',
  },
  'api-key': { what: 'an API key', instead: 'DEVPLAT_API_KEY or --api-key-stdin' },
};

const startsWith = (path: string[], prefix: string[]) => prefix.every((word, index) => path[index] === word);

/** Whether argv[index] is a global option, and how many tokens it spans. */
function globalOptionLength(argv: string[], index: number): number {
  const token = argv[index] as string;
  if (['--json', '--help', '-h', '--version', '--api-key-stdin'].includes(token) || token.startsWith('--console-url='))
    return 1;
  if (token === '--console-url') return 2;
  return 0;
}

export function parseCommandLine(argv: string[], commands: readonly CommandSpec[]): Invocation {
  const path: string[] = [];
  const wordIndexes = new Set<number>();
  let unknownWord: string | undefined;
  for (let index = 0; index < argv.length; ) {
    const token = argv[index] as string;
    const globalLength = globalOptionLength(argv, index);
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
    if (!commands.some((spec) => spec.path.join(' ') === path.join(' '))) unknownWord = token;
    break;
  }
  const spec = commands.find((command) => command.path.join(' ') === path.join(' '));
  const rest = argv.filter((_, index) => !wordIndexes.has(index));

  if (unknownWord !== undefined && !rest.includes('--help') && !rest.includes('-h')) {
    const typed = [...path, unknownWord].join(' ');
    const suggestion = closest(
      typed,
      commands.map((command) => command.path.join(' ')),
    );
    throw new UsageError(
      `Unknown command "${typed}".${suggestion ? ` Did you mean "devplat ${suggestion}"?` : ''}`,
      path,
    );
  }

  for (const token of rest) {
    if (token === '--') break;
    const name = /^--([^=]+)/.exec(token)?.[1];
    const refused = name !== undefined && Object.hasOwn(refusedOptions, name) ? refusedOptions[name] : undefined;
    if (refused) {
      throw new UsageError(
        `devplat never takes ${refused.what} as an argument (it would stay in your shell history ` +
          `and the process list): use ${refused.instead}.`,
        path,
      );
    }
  }

  const optionSpecs = [...globalOptions, versionOption, ...(spec?.options ?? [])];
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
    throw new UsageError(explainParseError(error, optionSpecs, path), path);
  }
  const values = parsed.values as OptionValues;
  const invocation: Invocation = {
    path,
    args: {},
    rest: [],
    options: values,
    json: values.json === true,
    help: values.help === true,
    version: values.version === true,
    ...(typeof values['console-url'] === 'string' ? { consoleUrl: values['console-url'] } : {}),
    ...(spec ? { spec } : {}),
  };
  if (!spec || invocation.help || invocation.version) return invocation;

  const positionals = [...parsed.positionals];
  for (const argument of spec.args ?? []) {
    if (argument.variadic) {
      invocation.rest = positionals.splice(0);
      break;
    }
    const value = positionals.shift();
    if (value === undefined) throw new UsageError(`Missing argument <${argument.name}>.`, path);
    if (argument.choices && !argument.choices.includes(value)) {
      throw new UsageError(`<${argument.name}> must be one of ${argument.choices.join(', ')} (got "${value}").`, path);
    }
    invocation.args[argument.name] = value;
  }
  if (positionals.length > 0) throw new UsageError(`Unexpected argument "${positionals[0]}".`, path);
  for (const option of spec.options ?? []) {
    const value = values[option.name];
    if (option.required && (value === undefined || (Array.isArray(value) && value.length === 0))) {
      throw new UsageError(`Missing required option --${option.name}.`, path);
    }
    const given = value === undefined ? [] : Array.isArray(value) ? value : [value];
    for (const item of given) {
      if (option.choices && typeof item === 'string' && !option.choices.includes(item)) {
        throw new UsageError(`--${option.name} must be one of ${option.choices.join(', ')} (got "${item}").`, path);
      }
    }
  }
  return invocation;
}

/** parseArgs's errors are written for programmers; these are for the person at the terminal. */
function explainParseError(error: unknown, options: OptionSpec[], path: string[]): string {
  const code = (error as { code?: string }).code;
  const message = error instanceof Error ? error.message : String(error);
  const named = /'(-[^' ]+)/.exec(message)?.[1] ?? '';
  const command = path.length ? `devplat ${path.join(' ')}` : 'devplat';
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const suggestion = closest(
      named.replace(/^-+/, ''),
      options.map((option) => option.name),
    );
    return `Unknown option ${named} for ${command}.${suggestion ? ` Did you mean --${suggestion}?` : ''}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    return message.includes('does not take an argument')
      ? `Option ${named} takes no value.`
      : `Option ${named} needs a value.`;
  }
  return message;
}
