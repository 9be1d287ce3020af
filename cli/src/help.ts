// Help texts, all made from the command table with the parts both command lines share
// (@devplat/command-line): the overview, a group's, a command's, and the short usage printed after
// a usage error.
import { alignColumns, argumentRows, optionRows, usageLine as sharedUsageLine, wrap } from '@devplat/command-line';
import { type CommandSpec, commandName, globalOptions, groups } from './command.ts';

const bin = 'devplat';

const usageLine = (spec: CommandSpec) => sharedUsageLine(bin, spec);

function section(title: string, lines: string[]): string[] {
  return lines.length ? ['', title, ...lines.map((line) => `  ${line}`)] : [];
}

/** USAGE, ARGUMENTS and OPTIONS: what a usage error prints. */
export function usageText(spec: CommandSpec): string {
  return [
    'USAGE',
    `  ${usageLine(spec)}`,
    ...section('ARGUMENTS', argumentRows(spec.args ?? [])),
    ...section('OPTIONS', optionRows(spec.options ?? [])),
    '',
  ].join('\n');
}

export function commandHelp(spec: CommandSpec): string {
  return [
    `${spec.summary}`,
    '',
    usageText(spec).trimEnd(),
    ...(spec.description ?? []).flatMap((paragraph) => ['', ...wrap(paragraph)]),
    ...section('GLOBAL OPTIONS', optionRows(globalOptions)),
    ...section('EXAMPLES', spec.examples ?? []),
    '',
  ].join('\n');
}

const commandRows = (commands: readonly CommandSpec[]) =>
  alignColumns(
    commands.map((spec) => [
      [commandName(spec), ...(spec.args ?? []).map((arg) => (arg.variadic ? `[${arg.name}]` : `<${arg.name}>`))].join(
        ' ',
      ),
      spec.summary,
    ]),
  );

export function groupHelp(group: string, commands: readonly CommandSpec[]): string {
  const members = commands.filter((spec) => spec.path[0] === group);
  return [
    groups[group] ?? group,
    '',
    'USAGE',
    `  ${bin} ${group} <command> [options]`,
    ...section('COMMANDS', commandRows(members)),
    ...section('GLOBAL OPTIONS', optionRows(globalOptions)),
    '',
    `Run "${bin} help ${group} <command>" or add --help for a command's options.`,
    '',
  ].join('\n');
}

export function overviewHelp(commands: readonly CommandSpec[]): string {
  return [
    `${bin}: the Developer Platform from the command line. It is a client of the developer console's`,
    'JSON API: register, sign in, create sandbox apps and players, rotate secrets, test webhooks,',
    'and try the whole OAuth flow against your app.',
    '',
    'USAGE',
    `  ${bin} <command> [arguments] [options]`,
    '  From a checkout of the platform: npm run -s devplat -- <command> [arguments] [options]',
    ...section('GET STARTED (with `npm start` running in another terminal)', [
      `${bin} register --email you@example.com --display-name "Ada Lovelace"`,
      `${bin} login --email you@example.com`,
      `${bin} apps create --name "My App" --redirect-uri http://127.0.0.1:8976/callback --scope profile.basic.read`,
      `${bin} players create --username ada`,
      `${bin} try <client_id> --client-secret-stdin    # then open the address it prints`,
    ]),
    ...section('COMMANDS', commandRows(commands)),
    ...section(
      'GLOBAL OPTIONS',
      optionRows([...globalOptions, { name: 'version', type: 'boolean', description: 'Print the version' }]),
    ),
    ...section(
      'ENVIRONMENT',
      alignColumns([
        ['DEVPLAT_CONSOLE_URL', 'The developer console (default http://127.0.0.3:8082)'],
        ['DEVPLAT_TOKEN', 'A console session token, used instead of the stored one'],
        ['DEVPLAT_API_KEY', 'An API key (devplat keys create), used instead of any session'],
        ['DEVPLAT_PASSWORD', 'The password for register, login and players create'],
        ['DEVPLAT_CLIENT_SECRET', 'The client secret for try'],
        ['DEVPLAT_BASE_URL', 'The public API for try (default http://127.0.0.1:8080/developer/v1)'],
        ['DEVPLAT_CONFIG_DIR', `Where credentials.json is kept (default \${XDG_CONFIG_HOME:-~/.config}/devplat)`],
      ]),
    ),
    '',
    'Passwords and client secrets are never taken as arguments: devplat asks for them at the',
    'terminal (hidden), or reads the first line of stdin (--password-stdin, --client-secret-stdin),',
    'or the environment variables above. So are API keys: DEVPLAT_API_KEY, or --api-key-stdin.',
    ...section('EXIT CODES', [
      '0  success',
      '1  the API refused, or something failed (the message says what)',
      '2  usage error: unknown command or option, missing argument',
      '3  not signed in (run devplat login)',
    ]),
    '',
    `Run "${bin} help <command>" or add --help to any command for its options and examples.`,
    '',
  ].join('\n');
}
