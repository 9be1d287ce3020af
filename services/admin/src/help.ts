// The admin command's help: the command list (`admin help`), one command's page
// (`admin <command> --help`, `admin help <command>`), and "did you mean" for a mistyped name.
import type { Command } from './command.ts';

const invoke = 'npm run -s admin --';

export function generalHelp(commands: readonly Command[]): string {
  const width = Math.max(...commands.map((command) => command.name.length)) + 2;
  const list = commands.map((command) => `  ${command.name.padEnd(width)}${command.summary}`).join('\n');
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

export function usageLine(command: Command): string {
  const args = command.args.map((name) => ` <${name}>`).join('');
  const options = Object.entries(command.options)
    .map(([name, option]) => {
      const text = `--${name}${option.value ? ` ${option.value}` : ''}`;
      return option.required ? ` ${text}` : ` [${text}]`;
    })
    .join('');
  return `Usage: ${invoke} ${command.name}${args}${options}`;
}

export function commandHelp(command: Command): string {
  const rows = [
    ...Object.entries(command.options).map(([name, option]) => ({
      left: `--${name}${option.value ? ` ${option.value}` : ''}`,
      right: `${option.description}${option.required ? ' (required)' : ''}`,
    })),
    { left: '-h, --help', right: 'This help' },
  ];
  const width = Math.max(...rows.map((row) => row.left.length)) + 2;
  const options = rows.map((row) => `  ${row.left.padEnd(width)}${row.right}`).join('\n');
  return `${usageLine(command)}\n\n${command.summary}.\n\n${command.details}\n\nOptions:\n${options}\n`;
}

/** The pairs of adjacent characters of a word, for a likeness that forgives a slip or a missing part. */
function pairs(word: string): string[] {
  return Array.from({ length: Math.max(0, word.length - 1) }, (_, index) => word.slice(index, index + 2));
}

/** The command most like `typed` (Sørensen–Dice over character pairs), if any is close enough. */
export function suggestion(typed: string, names: readonly string[]): string | undefined {
  const mine = pairs(typed.toLowerCase());
  let best: { name: string; likeness: number } | undefined;
  for (const name of names) {
    const theirs = pairs(name);
    const left = [...theirs];
    let shared = 0;
    for (const pair of mine) {
      const at = left.indexOf(pair);
      if (at >= 0) {
        shared += 1;
        left.splice(at, 1);
      }
    }
    const likeness = (2 * shared) / (mine.length + theirs.length || 1);
    if (likeness >= 0.4 && (!best || likeness > best.likeness)) best = { name, likeness };
  }
  return best?.name;
}
