// The command table: every command devplat knows, in the order help lists them.
import { UsageError } from '@devplat/command-line';
import { accountCommands } from './account-commands.ts';
import { appCommands } from './app-commands.ts';
import { type CommandSpec, groups } from './command.ts';
import { bashCompletion, zshCompletion } from './completion.ts';
import { commandHelp, groupHelp, overviewHelp } from './help.ts';
import { keyCommands } from './key-commands.ts';
import { listenCommand } from './listen-command.ts';
import { logsCommands } from './logs-command.ts';
import { playerCommands } from './player-commands.ts';
import { tokenCommand } from './token-command.ts';
import { triggerCommands } from './trigger-command.ts';
import { tryCommand } from './try-command.ts';
import { webhookCommands } from './webhook-commands.ts';

/** The help text for some command words: a command's, a group's, or the overview. */
export function helpFor(words: string[], commands: readonly CommandSpec[]): string {
  if (words.length === 0) return overviewHelp(commands);
  const spec = commands.find((command) => command.path.join(' ') === words.join(' '));
  if (spec) return commandHelp(spec);
  if (words.length === 1 && commands.some((command) => command.path[0] === words[0])) {
    return groupHelp(words[0] as string, commands);
  }
  throw new UsageError(`No help for "${words.join(' ')}": there is no such command.`, ['help']);
}

const help: CommandSpec = {
  path: ['help'],
  summary: 'Show help for devplat or for a command',
  args: [{ name: 'command', variadic: true, description: 'The command, e.g. apps create' }],
  examples: ['devplat help apps create'],
  async run(ctx) {
    ctx.io.stdout.write(helpFor(ctx.rest, ctx.commands));
  },
};

const shells = ['bash', 'zsh'] as const;

const completion: CommandSpec = {
  path: ['completion'],
  summary: 'Print a shell completion script (bash or zsh)',
  args: [{ name: 'shell', description: 'bash or zsh', choices: shells }],
  description: [
    'Load it in the current shell with source <(devplat completion bash), or add that line to ~/.bashrc ' +
      '(~/.zshrc for zsh). It completes commands, options, and the values of --scope and --status.',
  ],
  examples: [
    'source <(devplat completion bash)',
    'devplat completion zsh > ~/.zfunc/_devplat   # with fpath+=(~/.zfunc) in ~/.zshrc',
  ],
  async run(ctx) {
    const script = ctx.args.shell === 'zsh' ? zshCompletion : bashCompletion;
    ctx.io.stdout.write(script(ctx.commands, groups));
  },
};

export const commands: readonly CommandSpec[] = [
  ...accountCommands,
  ...appCommands,
  ...playerCommands,
  ...webhookCommands,
  ...keyCommands,
  ...logsCommands,
  ...triggerCommands,
  tryCommand,
  tokenCommand,
  listenCommand,
  completion,
  help,
];
