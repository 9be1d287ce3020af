// One run of devplat: parse the command line, run the command, and turn whatever stopped it into
// a message (or Problem JSON with --json) and an exit code.
import { UsageError } from '@devplat/command-line';
import type { CommandContext, CommandSpec } from './command.ts';
import { commands as allCommands, helpFor } from './commands.ts';
import { createConsoleClient } from './console-client.ts';
import { CliError, exitCodes, usageProblem } from './errors.ts';
import { usageText } from './help.ts';
import type { Io } from './io.ts';
import { createOutput } from './output.ts';
import { type Invocation, parseCommandLine } from './parse.ts';
import { readFirstLine } from './secret-input.ts';
import { activeSession, givenApiKey, refusedSessionHints } from './session.ts';
import { isLocalHttp } from './try-defaults.ts';
import { version } from './version.ts';

const defaultConsoleUrl = 'http://127.0.0.3:8082';

/** The console's URL as credentials are keyed: no trailing slash, no query. */
function consoleUrlFrom(given: string): string {
  let url: URL;
  try {
    url = new URL(given);
  } catch {
    throw new UsageError(`--console-url must be a URL like ${defaultConsoleUrl} (got "${given}").`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search || url.hash || url.username || url.password) {
    throw new UsageError(`--console-url must be an http(s) URL without query or credentials (got "${given}").`);
  }
  // The password at login and the session token on every call must not cross a network in clear.
  if (url.protocol === 'http:' && !isLocalHttp(url.href)) {
    throw new UsageError(`--console-url must use https unless the console is on this machine (got "${given}").`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * With --api-key-stdin, the first line of stdin, read before the command runs (undefined without
 * it). Stdin holds one line for one reader: another --…-stdin of the command would find it read.
 */
async function apiKeyLine(invocation: Invocation, io: Io): Promise<string | undefined> {
  if (invocation.options['api-key-stdin'] !== true) return undefined;
  const other = Object.keys(invocation.options).find(
    (name) => name !== 'api-key-stdin' && name.endsWith('-stdin') && invocation.options[name] === true,
  );
  if (other !== undefined) {
    throw new UsageError(
      `--api-key-stdin and --${other} would both read the first line of stdin: give the API key in DEVPLAT_API_KEY instead.`,
      invocation.path,
    );
  }
  const line = await readFirstLine(io.stdin());
  if (line.trim() === '') throw new UsageError('--api-key-stdin was given but the first line of stdin is empty.');
  return line;
}

export async function run(argv: string[], io: Io, commands: readonly CommandSpec[] = allCommands): Promise<number> {
  // Known before parsing succeeds, so that even a usage error comes out as JSON.
  let json = argv.includes('--json');
  let path: string[] = [];
  try {
    const invocation = parseCommandLine(argv, commands);
    json = invocation.json;
    path = invocation.path;
    if (invocation.version) {
      io.stdout.write(`devplat ${version}\n`);
      return exitCodes.ok;
    }
    const spec = invocation.spec;
    // `devplat` or `devplat apps` alone asks what there is: the help answers.
    if (invocation.help || !spec) {
      io.stdout.write(helpFor(path, commands));
      return exitCodes.ok;
    }
    const consoleUrl = consoleUrlFrom(invocation.consoleUrl ?? io.env.DEVPLAT_CONSOLE_URL ?? defaultConsoleUrl);
    const line = await apiKeyLine(invocation, io);
    // Checked when a command asks for the credential: one that never calls the console ignores it.
    const apiKey = () => givenApiKey(io.env, line);
    const context: CommandContext = {
      args: invocation.args,
      rest: invocation.rest,
      options: invocation.options,
      json,
      consoleUrl,
      io,
      out: createOutput(io, json),
      commands,
      session: (options) => activeSession(io.env, consoleUrl, apiKey(), options),
      signedIn(options) {
        const session = activeSession(io.env, consoleUrl, apiKey(), options);
        return createConsoleClient({ consoleUrl, token: session.token, signInAgain: refusedSessionHints(session) });
      },
      anonymous: () => createConsoleClient({ consoleUrl }),
    };
    await spec.run(context);
    return exitCodes.ok;
  } catch (error) {
    if (error instanceof UsageError) {
      const words = error.commandPath.length ? error.commandPath : path;
      report(new CliError(exitCodes.usage, usageProblem(error.message)), json, io, words, commands);
      return exitCodes.usage;
    }
    if (!(error instanceof CliError)) {
      // A bug: say so in one line, without the stack.
      const detail = `Unexpected failure: ${error instanceof Error ? error.message : String(error)}`;
      io.stderr.write(json ? `${JSON.stringify({ code: 'INTERNAL_ERROR', detail })}\n` : `Error: ${detail}\n`);
      return exitCodes.failure;
    }
    report(error, json, io, path, commands);
    return error.exitCode;
  }
}

/** What stopped the command, and for a usage error (exit 2) the usage of the command of `path`. */
function report(error: CliError, json: boolean, io: Io, path: string[], commands: readonly CommandSpec[]) {
  if (json) {
    io.stderr.write(`${JSON.stringify(error.problem)}\n`);
    return;
  }
  const fromServer = error.problem.status !== undefined && error.problem.request_id;
  const lines = [`Error: ${error.problem.detail}${fromServer ? ` (${error.problem.code})` : ''}`, ...error.hints];
  if (error.exitCode === exitCodes.usage) {
    const spec = commands.find((command) => command.path.join(' ') === path.join(' '));
    lines.push('');
    if (spec) {
      lines.push(usageText(spec).trimEnd(), '', `Run "devplat ${path.join(' ')} --help" for more.`);
    } else if (path.length) {
      lines.push(helpFor(path, commands).trimEnd());
    } else {
      lines.push('Usage: devplat <command> [arguments] [options]', 'Run "devplat help" for the list of commands.');
    }
  }
  io.stderr.write(`${lines.join('\n')}\n`);
}
