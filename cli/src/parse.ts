// devplat's command line, read by the parser both command lines share (@devplat/command-line):
// global options anywhere, --help and --version answered before anything else is checked, no
// secret ever as an argument, and every usage problem in devplat's words.
import { type Program, parseCommandLine as parseLine, type UsageProblem } from '@devplat/command-line';
import { type CommandContext, type CommandSpec, globalOptions, type OptionSpec, type OptionValues } from './command.ts';

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

/** Each usage problem as devplat says it. */
function words(problem: UsageProblem, path: string[]): string {
  const command = path.length ? `devplat ${path.join(' ')}` : 'devplat';
  switch (problem.kind) {
    case 'unknown-command':
      return `Unknown command "${problem.typed}".${problem.suggestion ? ` Did you mean "devplat ${problem.suggestion}"?` : ''}`;
    case 'refused-option': {
      const refused = refusedOptions[problem.option];
      return (
        `devplat never takes ${refused?.what} as an argument (it would stay in your shell history ` +
        `and the process list): use ${refused?.instead}.`
      );
    }
    case 'unknown-option':
      return `Unknown option ${problem.option} for ${command}.${problem.suggestion ? ` Did you mean --${problem.suggestion}?` : ''}`;
    case 'option-takes-no-value':
      return `Option ${problem.option} takes no value.`;
    case 'option-needs-value':
      return `Option ${problem.option} needs a value.`;
    case 'unreadable':
      return problem.message;
    case 'missing-argument':
      return `Missing argument <${problem.argument}>.`;
    case 'argument-not-a-choice':
      return `<${problem.argument}> must be one of ${problem.choices.join(', ')} (got "${problem.value}").`;
    case 'unexpected-argument':
      return `Unexpected argument "${problem.value}".`;
    case 'missing-option':
      return `Missing required option --${problem.option}.`;
    case 'option-not-a-choice':
      return `--${problem.option} must be one of ${problem.choices.join(', ')} (got "${problem.value}").`;
  }
}

export function parseCommandLine(argv: string[], commands: readonly CommandSpec[]): Invocation {
  const program: Program<CommandContext> = {
    commands,
    globalOptions: [...globalOptions, versionOption],
    answeredOptions: ['help', 'version'],
    helpOption: 'help',
    checksRequired: true,
    refusedOptions: Object.keys(refusedOptions),
    words,
  };
  const line = parseLine(argv, program);
  const { options } = line;
  return {
    ...line,
    json: options.json === true,
    help: options.help === true,
    version: options.version === true,
    ...(typeof options['console-url'] === 'string' ? { consoleUrl: options['console-url'] } : {}),
  };
}
