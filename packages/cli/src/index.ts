// @devplat/cli: the devplat command, usable from code as run(argv, io).
export type { CommandContext, CommandSpec, OptionSpec } from './command.ts';
export { commands } from './commands.ts';
export { bashCompletion, zshCompletion } from './completion.ts';
export { configDir, credentialsPath } from './credentials.ts';
export { CliError, exitCodes, type Problem } from './errors.ts';
export { type Io, processIo } from './io.ts';
export { consoleUrlFrom, defaultConsoleUrl, run } from './run.ts';
export { version } from './version.ts';
