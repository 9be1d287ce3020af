// Passwords and client secrets never come from the command line (shell history, the process list):
// they come from the first line of stdin, an environment variable, or a hidden terminal prompt.
import { UsageError } from '@devplat/command-line';
import { CliError, exitCodes, failure, localProblem } from './errors.ts';
import type { Io } from './io.ts';

export interface SecretSource {
  /** What is asked for, in words: "password", "client secret". */
  what: string;
  /** The flag that reads it from stdin was given. */
  fromStdin: boolean;
  stdinFlag: string;
  envName: string;
  prompt: string;
  /** Asks a second time at the terminal and compares (new passwords). */
  confirmPrompt?: string;
}

export async function readSecret(io: Io, source: SecretSource): Promise<string> {
  let value: string;
  if (source.fromStdin) {
    value = await readFirstLine(io.stdin());
    if (value === '') throw new UsageError(`${source.stdinFlag} was given but the first line of stdin is empty.`);
    return value;
  }
  const fromEnv = io.env[source.envName];
  if (fromEnv) return fromEnv;
  const stdin = io.stdin();
  if (!stdin.isTTY) {
    throw new UsageError(
      `A ${source.what} is needed: pipe it with ${source.stdinFlag}, set ${source.envName}, or run in a terminal to type it.`,
    );
  }
  value = await promptHidden(stdin, io.stderr, source.prompt);
  if (value === '') throw failure('EMPTY_SECRET', 'Nothing typed', `No ${source.what} was typed.`);
  if (source.confirmPrompt && (await promptHidden(stdin, io.stderr, source.confirmPrompt)) !== value) {
    throw failure('SECRETS_DIFFER', 'Entries differ', `The two ${source.what}s typed differ.`);
  }
  return value;
}

/** The first line of a stream (without its line break); reading stops there. */
export async function readFirstLine(stream: NodeJS.ReadableStream): Promise<string> {
  stream.setEncoding('utf8');
  let text = '';
  for await (const chunk of stream) {
    text += chunk as string;
    if (text.includes('\n')) break;
  }
  return (text.split('\n')[0] ?? '').replace(/\r$/, '');
}

/** Reads a line at the terminal without echoing it. Ctrl-C stops the command (exit 130). */
function promptHidden(stdin: NodeJS.ReadStream, stderr: Io['stderr'], prompt: string): Promise<string> {
  return new Promise((resolve, reject) => {
    // Echo goes off before the prompt shows: whatever is typed once it shows stays hidden.
    stdin.setEncoding('utf8');
    stdin.setRawMode(true);
    stderr.write(prompt);
    let value = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (character === '\r' || character === '\n' || character === '\u0004') return finish();
        if (character === '\u0003') {
          return finish(
            new CliError(exitCodes.interrupted, localProblem('INTERRUPTED', 'Interrupted', 'Interrupted.')),
          );
        }
        if (character === '\u007f' || character === '\b') value = Array.from(value).slice(0, -1).join('');
        else if (character >= ' ') value += character;
      }
    };
    stdin.on('data', onData);
    stdin.resume();
  });
}
