// The operator's command: npm run -s admin -- <command> [arguments] [options], or
// node services/admin/src/main.ts <command> ... in a container. Each command is a module of its
// own; this file reads the command line, runs the command, and turns a failure into one line on
// stderr and a sysexits.h exit code (no stack trace, no setting's value).
import { parseArgs } from 'node:util';
import { ConfigError } from '@devplat/config';
import { Refusal } from '@devplat/domain/refusal';
import { DependencyUnavailableError, UnstorableValueError } from '@devplat/errors';
import { findAccountsCommand, showAccountCommand } from './account-directory.ts';
import { reactivateAccountCommand, suspendAccountCommand } from './accounts.ts';
import { findAppsCommand, showAppCommand } from './app-directory.ts';
import { suspendAppCommand, unsuspendAppCommand } from './apps.ts';
import { auditCommand } from './audit.ts';
import { AdminError, type Command, exitCodes, type Io, usageError } from './command.ts';
import { listConsentsCommand } from './consent-listing.ts';
import { endAppConsentsCommand, endConsentCommand, endPlayerConsentsCommand } from './consents.ts';
import { createTokenCommand } from './create-token.ts';
import { generateSigningKeyCommand } from './generate-signing-key.ts';
import { commandHelp, generalHelp, suggestion, usageLine } from './help.ts';
import { janitorCommand } from './janitor.ts';
import { findPlayersCommand, showPlayerCommand } from './player-directory.ts';
import { disablePlayerCommand, enablePlayerCommand } from './players.ts';
import { refusalExitCodes } from './refusals.ts';
import { rotationProcedureCommand } from './rotation-procedure.ts';

const commands: readonly Command[] = [
  generateSigningKeyCommand,
  rotationProcedureCommand,
  createTokenCommand,
  janitorCommand,
  auditCommand,
  findAccountsCommand,
  showAccountCommand,
  suspendAccountCommand,
  reactivateAccountCommand,
  findPlayersCommand,
  showPlayerCommand,
  disablePlayerCommand,
  enablePlayerCommand,
  findAppsCommand,
  showAppCommand,
  suspendAppCommand,
  unsuspendAppCommand,
  listConsentsCommand,
  endConsentCommand,
  endAppConsentsCommand,
  endPlayerConsentsCommand,
];

const isHelp = (word: string | undefined) => word === 'help' || word === '--help' || word === '-h';

function unknownCommand(typed: string): AdminError {
  if (typed.startsWith('-')) return usageError(`a command comes first (got "${typed}"): "admin help" lists them`);
  const like = suggestion(
    typed,
    commands.map((command) => command.name),
  );
  return usageError(
    `unknown command "${typed}".${like ? ` Did you mean "${like}"?` : ''} "admin help" lists the commands.`,
  );
}

function findCommand(name: string): Command {
  const command = commands.find((candidate) => candidate.name === name);
  if (!command) throw unknownCommand(name);
  return command;
}

/** The command's options and arguments, strictly: an unknown option or a missing argument is a usage error. */
function parse(command: Command, argv: string[]) {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      options: Object.fromEntries(Object.entries(command.options).map(([name, { type }]) => [name, { type }])),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    const named = /'(-[^' ]+)/.exec((error as Error).message)?.[1] ?? '';
    const code = (error as { code?: string }).code;
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      const like = suggestion(named.replace(/^-+/, ''), Object.keys(command.options));
      throw usageError(`unknown option ${named}.${like ? ` Did you mean --${like}?` : ''}`);
    }
    if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      throw usageError(
        (error as Error).message.includes('does not take') ? `${named} takes no value` : `${named} needs a value`,
      );
    }
    throw usageError((error as Error).message);
  }
  const positionals = [...parsed.positionals];
  const args: Record<string, string> = {};
  for (const name of command.args) {
    const value = positionals.shift();
    if (value === undefined || value.trim() === '') throw usageError(`missing <${name}>`);
    args[name] = value.trim();
  }
  if (positionals.length > 0) throw usageError(`unexpected argument "${positionals[0]}"`);
  return { options: parsed.values as Record<string, string | boolean | undefined>, args };
}

/** A message in one line: its last (Prisma puts the reason last), never one with a URL (it may carry a password). */
const oneLine = (message: string) =>
  message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.includes('://'))
    .at(-1) ?? '';

/** Why a store failed, fit for one line: the socket's error code, the driver's kind, or its message. */
function reasonOf(error: unknown): string | null {
  let last: string | null = null;
  for (let cause = (error as { cause?: unknown })?.cause, depth = 0; cause && depth < 6; depth += 1) {
    const { code, kind, message } = cause as { code?: unknown; kind?: unknown; message?: unknown };
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code)) return code;
    if (typeof kind === 'string' && kind !== 'postgres') return kind;
    if (typeof message === 'string' && oneLine(message)) last = oneLine(message).slice(0, 120);
    cause = (cause as { cause?: unknown }).cause;
  }
  return last;
}

/** Runs one command line; resolves with the exit code. Output goes to io, never a stack trace. */
async function admin(argv: string[], env: Record<string, string | undefined>, io: Io): Promise<number> {
  const [first, ...rest] = argv;
  let command: Command | undefined;
  try {
    if (first === undefined) {
      io.note(generalHelp(commands));
      return exitCodes.usage;
    }
    if (isHelp(first)) {
      io.out(rest[0] === undefined ? generalHelp(commands) : commandHelp(findCommand(rest[0])));
      return exitCodes.ok;
    }
    command = findCommand(first);
    const beforeEnd = rest.includes('--') ? rest.slice(0, rest.indexOf('--')) : rest;
    if (beforeEnd.includes('--help') || beforeEnd.includes('-h')) {
      io.out(commandHelp(command));
      return exitCodes.ok;
    }
    await command.run({ ...parse(command, rest), env, io });
    return exitCodes.ok;
  } catch (error) {
    const who = command ? `admin ${command.name}` : 'admin';
    if (error instanceof ConfigError) {
      io.note(`configuration error: ${error.message}`);
      return exitCodes.config;
    }
    if (error instanceof Refusal) {
      io.note(`${who}: ${error.detail}`);
      return refusalExitCodes[error.code];
    }
    if (error instanceof AdminError) {
      io.note(`${who}: ${error.message}`);
      if (error.exitCode === exitCodes.usage && command) io.note(usageLine(command));
      return error.exitCode;
    }
    if (error instanceof UnstorableValueError) {
      io.note(`${who}: ${error.message}`);
      return exitCodes.dataError;
    }
    if (error instanceof DependencyUnavailableError) {
      const reason = reasonOf(error);
      io.note(`${who}: ${error.message}${reason ? ` (${reason})` : ''}; a second run is safe once it answers`);
      return exitCodes.unavailable;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.note(`${who}: unexpected failure: ${oneLine(message).slice(0, 300)}`);
    return exitCodes.software;
  }
}

const processIo: Io = {
  out: (text) => process.stdout.write(text),
  note: (text) => process.stderr.write(text.endsWith('\n') ? text : `${text}\n`),
};

process.exitCode = await admin(process.argv.slice(2), process.env, processIo);
// Everything the command opened is closed; should a handle linger, it must not hold the exit.
setTimeout(() => process.exit(), 1_000).unref();
