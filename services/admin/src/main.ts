// The operator's command: npm run -s admin -- <command> [arguments] [options], or
// node services/admin/src/main.ts <command> ... in a container. Each command is a module of its
// own; this file reads the command line, runs the command, and turns a failure into one line on
// stderr and a sysexits.h exit code (no stack trace, no setting's value).
import {
  closest,
  commandName,
  type Program,
  parseCommandLine,
  UsageError,
  type UsageProblem,
} from '@devplat/command-line';
import { ConfigError } from '@devplat/config';
import { Refusal } from '@devplat/domain/refusal';
import { DependencyUnavailableError, UnstorableValueError } from '@devplat/errors';
import { findAccountsCommand, showAccountCommand } from './account-directory.ts';
import { reactivateAccountCommand, suspendAccountCommand } from './accounts.ts';
import { findAppsCommand, showAppCommand } from './app-directory.ts';
import { suspendAppCommand, unsuspendAppCommand } from './apps.ts';
import { auditCommand } from './audit.ts';
import { AdminError, type Command, exitCodes, type Invocation, type Io, usageError } from './command.ts';
import { listConsentsCommand } from './consent-listing.ts';
import { endAppConsentsCommand, endConsentCommand, endPlayerConsentsCommand } from './consents.ts';
import { createTokenCommand } from './create-token.ts';
import { generateSigningKeyCommand } from './generate-signing-key.ts';
import { commandHelp, generalHelp, usageLine } from './help.ts';
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

/** Each usage problem as the admin says it: lower case, one line. */
function words(problem: UsageProblem): string {
  switch (problem.kind) {
    case 'unknown-command':
      return (
        `unknown command "${problem.typed}".${problem.suggestion ? ` Did you mean "${problem.suggestion}"?` : ''} ` +
        '"admin help" lists the commands.'
      );
    case 'unknown-option':
      return `unknown option ${problem.option}.${problem.suggestion ? ` Did you mean --${problem.suggestion}?` : ''}`;
    case 'option-takes-no-value':
      return `${problem.option} takes no value`;
    case 'option-needs-value':
      return `${problem.option} needs a value`;
    case 'unreadable':
      return problem.message;
    case 'missing-argument':
      return `missing <${problem.argument}>`;
    case 'unexpected-argument':
      return `unexpected argument "${problem.value}"`;
    case 'argument-not-a-choice':
      return `<${problem.argument}> must be one of ${problem.choices.join(', ')} (got "${problem.value}")`;
    case 'missing-option':
      return `--${problem.option} is required`;
    case 'option-not-a-choice':
      return `--${problem.option} must be one of ${problem.choices.join(', ')} (got "${problem.value}")`;
    case 'refused-option':
      return `--${problem.option} is not taken`;
  }
}

// The admin's commands check their own required options (ADMIN_OPERATOR stands in for --operator)
// and trim their arguments; none takes a global option.
const program: Program<Invocation> = { commands, checksRequired: false, trimsArguments: true, words };

function findCommand(name: string): Command {
  if (name.startsWith('-')) throw usageError(`a command comes first (got "${name}"): "admin help" lists them`);
  const command = commands.find((candidate) => commandName(candidate) === name);
  if (command) return command;
  const suggestion = closest(name, commands.map(commandName));
  const problem: UsageProblem = { kind: 'unknown-command', typed: name, ...(suggestion && { suggestion }) };
  throw new UsageError(words(problem), [], problem);
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
    const { options, args } = parseCommandLine(argv, program);
    await command.run({ options: options as Invocation['options'], args, env, io });
    return exitCodes.ok;
  } catch (error) {
    const who = command ? `admin ${commandName(command)}` : 'admin';
    if (error instanceof ConfigError) {
      io.note(`configuration error: ${error.message}`);
      return exitCodes.config;
    }
    if (error instanceof Refusal) {
      io.note(`${who}: ${error.detail}`);
      return refusalExitCodes[error.code];
    }
    if (error instanceof UsageError) {
      io.note(`${who}: ${error.message}`);
      if (command) io.note(usageLine(command));
      return exitCodes.usage;
    }
    if (error instanceof AdminError) {
      io.note(`${who}: ${error.message}`);
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
