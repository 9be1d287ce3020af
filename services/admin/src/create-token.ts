// admin create-token: a new operator token for the admin API. The token is printed this once and
// kept nowhere; the line printed with it, which goes into ADMIN_TOKENS_FILE, holds only its hash.
import {
  newKey,
  type OperatorRole,
  operatorNamePattern,
  operatorRoles,
  operatorTokenPrefix,
  secretHash,
} from '@devplat/keys';
import { type Command, required, stringOption, usageError } from './command.ts';

/** The token, then the line for the tokens file: what the command prints on stdout, in order. */
export function operatorToken(name: string, role: OperatorRole): { token: string; line: string } {
  const token = newKey(operatorTokenPrefix);
  return { token, line: `${name} ${role} ${secretHash(token)}` };
}

function nameOption(value: string | boolean | undefined): string {
  const name = typeof value === 'string' ? value.trim() : '';
  if (name === '') throw usageError('--name <name> is required: the audit records of every call name the operator');
  if (!operatorNamePattern.test(name)) {
    throw usageError('--name must be 1 to 100 letters, digits, ".", "_", "@" or "-", starting with a letter or digit');
  }
  return name;
}

function roleOption(value: string | boolean | undefined): OperatorRole {
  const role = typeof value === 'string' ? value.trim() : '';
  if (!(operatorRoles as readonly string[]).includes(role)) {
    throw usageError(`--role must be ${operatorRoles.join(' or ')}${role ? ` (got "${role}")` : ''}`);
  }
  return role as OperatorRole;
}

export const createTokenCommand: Command = {
  path: ['create-token'],
  summary: 'Make an operator token for the admin API, and the line of ADMIN_TOKENS_FILE that admits it',
  description: [
    `Prints two lines on stdout: first the new token (${operatorTokenPrefix} and 43 random characters),
then the line to append to the operator tokens file (ADMIN_TOKENS_FILE): "<name> <role> <SHA-256 of
the token>". The token is shown this once and kept nowhere: hand it to the operator (a password
manager, a secret store), never to a log, a ticket or the tokens file. The file holds only hashes;
the admin API reads it again every second, so the token works within about two seconds of the
line being added (in Kubernetes, once the kubelet has updated the Secret volume), and stops
working as soon as the line is removed. A read token may read; a write token may also suspend,
reactivate, disable and enable. Every call is logged and audited under the name. Needs no
database and no setting.`,
  ],
  args: [],
  options: [
    required(stringOption('name', '<name>', 'The operator the token is for, as audit records will name them')),
    required(stringOption('role', '<read|write>', 'read, or write (read and change)')),
  ],
  async run({ options, io }) {
    const { token, line } = operatorToken(nameOption(options.name), roleOption(options.role));
    io.out(`${token}\n${line}\n`);
    io.note(
      'Line 1 is the token, shown this once: give it to its operator and keep it out of every file and log.\n' +
        'Line 2 goes into ADMIN_TOKENS_FILE (append it); the token works within about two seconds.',
    );
  },
};
