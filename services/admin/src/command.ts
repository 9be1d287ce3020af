// What every admin command is made of: the command table's shape both command lines share
// (@devplat/command-line: its name, its help, its options), run with the admin's invocation. A
// command either finishes (exit 0) or throws; main.ts turns what it throws into one line on stderr
// and the exit code of sysexits.h (a domain Refusal's through refusals.ts; a UsageError is 64).
import { type CommandSpec, type OptionSpec, UsageError } from '@devplat/command-line';
import { maxReasonLength, operatorReason, type ReasonFault } from '@devplat/domain/audit';

export type { OptionSpec };

/** `--<name> <value>`: an option that takes a value, e.g. stringOption('email', '<address>', 'The address'). */
export const stringOption = (name: string, value: string, description: string): OptionSpec => ({
  name,
  type: 'string',
  value,
  description,
});

/** The option, shown as required (the command checks it itself). */
export const required = (option: OptionSpec): OptionSpec => ({ ...option, required: true });

/** sysexits.h, as the services use them (78 is loadConfigOrExit's). */
export const exitCodes = {
  ok: 0,
  usage: 64,
  dataError: 65,
  unavailable: 69,
  software: 70,
  tempFail: 75,
  config: 78,
} as const;

/** A store or a setting the admin cannot use: one line, and the exit code. */
export class AdminError extends Error {
  override readonly name = 'AdminError';
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** A command line the admin cannot run (exit 64). */
export const usageError = (message: string) => new UsageError(message);

/** Where a command writes: results on stdout, notes for the operator on stderr. */
export interface Io {
  out(text: string): void;
  note(text: string): void;
}

export interface Invocation {
  /** The options given, by name (a string option's value, or true). */
  options: Record<string, string | boolean | undefined>;
  /** The positional arguments, by the names in the command's `args`. */
  args: Record<string, string>;
  env: Record<string, string | undefined>;
  io: Io;
}

/**
 * An admin command: one word, positional arguments each required, in order; options shown as
 * required are checked by the command itself (a default may come from the environment).
 */
export type Command = CommandSpec<Invocation>;

/** What help says of a command made by a helper (auditedCommand). */
export interface CommandText {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The text for `admin <command> --help`, after the usage line. */
  details: string;
}

/** The operator's name for the audit record: --operator, else ADMIN_OPERATOR. */
function operatorName(invocation: Invocation): string {
  const given = invocation.options.operator ?? invocation.env.ADMIN_OPERATOR;
  const name = typeof given === 'string' ? given.trim() : '';
  if (name === '') throw usageError('--operator <name> (or ADMIN_OPERATOR) is required: the audit record names you');
  if (name.length > 100) throw usageError('--operator must be at most 100 characters');
  return name;
}

/** --reason, recorded in the audit record's details; null when not given (the audit room's rule). */
function reasonText(invocation: Invocation): string | null {
  const reason = invocation.options.reason;
  if (typeof reason !== 'string') return null;
  const read = operatorReason(reason);
  if ('reason' in read) return read.reason;
  throw usageError(reasonRefusals[read.fault]);
}

const reasonRefusals: Record<ReasonFault, string> = {
  'too long': `--reason must be at most ${maxReasonLength} characters`,
  'control character': '--reason may hold no control character but tabs and line breaks',
  'not storable': '--reason may hold no lone surrogate',
};

/** An audited change's run: the invocation, who acts (for the audit record) and why. */
export interface AuditedRun {
  invocation: Invocation;
  operator: string;
  reason: string | null;
}

/** Who makes an audited change and why. */
const auditOptions: OptionSpec[] = [
  required(
    stringOption(
      'operator',
      '<name>',
      'Who you are, for the audit record (actor type operator); default ADMIN_OPERATOR',
    ),
  ),
  stringOption('reason', '<text>', 'Why, recorded in the audit record'),
];

/**
 * A command that changes one account or player named by its first argument and writes an audit
 * record (actor type operator): it takes --operator (or ADMIN_OPERATOR) and --reason besides its
 * own options.
 */
export function auditedCommand(
  { name, summary, details }: CommandText,
  argument: string,
  options: OptionSpec[],
  change: (run: AuditedRun) => Promise<void>,
): Command {
  return {
    path: [name],
    summary,
    description: [details],
    args: [{ name: argument }],
    options: [...options, ...auditOptions],
    run: (invocation) => change({ invocation, operator: operatorName(invocation), reason: reasonText(invocation) }),
  };
}
