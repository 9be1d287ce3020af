// What a devplat command runs with (its context), devplat's global options and its command groups;
// the command table's shape is the one both command lines share (@devplat/command-line).
import type { ArgumentSpec, OptionSpec, OptionValues, CommandSpec as Spec } from '@devplat/command-line';
import type { ConsoleClient } from './console-client.ts';
import type { Io } from './io.ts';
import type { Output } from './output.ts';
import type { ActiveSession, SessionOptions } from './session.ts';

export interface CommandContext {
  /** Positional arguments by name. */
  args: Record<string, string>;
  /** The words given to a variadic argument (help's). */
  rest: string[];
  options: OptionValues;
  json: boolean;
  consoleUrl: string;
  io: Io;
  out: Output;
  /**
   * The credential commands run with (an API key when one is given, else the session); throws
   * NotSignedInError without one. `sessionOnly`: a session alone, passing over an API key.
   */
  session(options?: SessionOptions): ActiveSession;
  /** The console API with that credential; throws NotSignedInError without one. */
  signedIn(options?: SessionOptions): ConsoleClient;
  /** The console API without a session (register, login). */
  anonymous(): ConsoleClient;
  /** Every command, for help and completion. */
  commands: readonly CommandSpec[];
}

/** A devplat command: the shared command table's shape, run with devplat's context. */
export type CommandSpec = Spec<CommandContext>;

export type { ArgumentSpec, OptionSpec, OptionValues };

export const globalOptions: OptionSpec[] = [
  { name: 'json', type: 'boolean', description: "Machine output: the API's JSON on stdout, errors as Problem JSON" },
  {
    name: 'console-url',
    type: 'string',
    value: '<url>',
    description: 'The developer console (env DEVPLAT_CONSOLE_URL, default http://127.0.0.3:8082)',
  },
  {
    name: 'api-key-stdin',
    type: 'boolean',
    description: 'Read an API key from the first line of stdin and use it instead of the session (or DEVPLAT_API_KEY)',
  },
  { name: 'help', short: 'h', type: 'boolean', description: 'Show help for the command' },
];

/** The groups of commands (apps, secrets, ...) with the summary their help shows. */
export const groups: Record<string, string> = {
  apps: 'Sandbox apps: list, create, show, disable',
  secrets: 'Client secrets: rotate, revoke',
  players: 'Synthetic sandbox players to sign in with',
  webhooks: 'Send a signed test webhook',
  deliveries: 'Webhook deliveries: list, replay failed ones',
  keys: 'API keys for scripts and CI: create, list, revoke',
  logs: "Your apps' request log: tail it live",
};

export { commandName } from '@devplat/command-line';
