// The admin command's help, made with the parts both command lines share (@devplat/command-line):
// the command list (`admin help`) and one command's page (`admin <command> --help`,
// `admin help <command>`), each in the admin's short layout.
import { commandName, type OptionSpec, optionRows, usageLine as sharedUsageLine } from '@devplat/command-line';
import type { Command } from './command.ts';

const invoke = 'npm run -s admin --';

export function generalHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => commandName(command).length)) + 2;
  const list = commands.map((command) => `  ${commandName(command).padEnd(width)}${command.summary}`).join('\n');
  return `The platform operator's commands.

Usage: ${invoke} <command> [arguments] [options]
       (or node services/admin/src/main.ts <command> ..., as a container's command)

Commands:
${list}
  ${'help [<command>]'.padEnd(width)}This list, or a command's help (also: <command> --help)

Settings (environment):
  DATABASE_URL            the deployment's PostgreSQL; required by every command that reads or
                          changes data (DATABASE_URL_FILE, DATABASE_TIMEOUT_MS as for the services)
  REDIS_URL               the deployment's Redis (and REDIS_KEY_PREFIX, REDIS_TIMEOUT_MS): account
                          and app changes are announced there to every process's app cache
  PAIRWISE_SECRET         the auth service's (or PAIRWISE_SECRET_FILE); required by end-consent,
                          end-app-consents and end-player-consents (consent.revoked names players
                          by each app's pairwise subject)
  ADMIN_OPERATOR          your name for audit records, when --operator is not given
  WEBHOOK_RETENTION_DAYS  janitor's default retention (30)

Exit codes: 0 done (also when there was nothing to change), 64 usage error, 65 no such account,
app, consent or player, or a refused filter, 69 PostgreSQL or Redis unavailable, 70 unexpected
failure, 78 configuration error.
Nothing is printed but the results: no setting's value, and no secret except the key that
generate-signing-key makes.
`;
}

/** The help option every command takes, as its help lists it. */
const helpOption: OptionSpec = { name: 'help', short: 'h', type: 'boolean', description: 'This help' };

export const usageLine = (command: Command): string => `Usage: ${sharedUsageLine(invoke, command)}`;

export function commandHelp(command: Command): string {
  const options = optionRows([...(command.options ?? []), helpOption]).map((row) => `  ${row}`);
  return [
    usageLine(command),
    '',
    `${command.summary}.`,
    '',
    (command.description ?? []).join('\n\n'),
    '',
    'Options:',
    ...options,
    '',
  ].join('\n');
}
