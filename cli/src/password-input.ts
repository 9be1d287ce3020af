// The password register, login and players create read: the first line of stdin with
// --password-stdin, else DEVPLAT_PASSWORD, else a hidden prompt; never an argument.
import type { CommandContext, OptionSpec } from './command.ts';
import { readSecret } from './secret-input.ts';

export const passwordStdinOption: OptionSpec = {
  name: 'password-stdin',
  type: 'boolean',
  description: 'Read the password from the first line of stdin',
};

/** Where a password is read from, as a command's help says it; `whose`: "The password", "The player's password". */
export const passwordSources = (whose: string) =>
  `${whose} is typed at a hidden prompt, or read from the first line of stdin with ` +
  '--password-stdin, or from DEVPLAT_PASSWORD. It is never taken as an argument.';

const password = (ctx: CommandContext, prompt: string, confirmPrompt?: string) =>
  readSecret(ctx.io, {
    what: 'password',
    fromStdin: ctx.options['password-stdin'] === true,
    stdinFlag: '--password-stdin',
    envName: 'DEVPLAT_PASSWORD',
    prompt,
    ...(confirmPrompt ? { confirmPrompt } : {}),
  });

/** A password to sign in with. */
export const readPassword = (ctx: CommandContext, prompt: string) => password(ctx, prompt);

/** A password being chosen: at the terminal, typed twice and compared. */
export const readNewPassword = (ctx: CommandContext, prompt: string) => password(ctx, prompt, 'Repeat the password: ');
