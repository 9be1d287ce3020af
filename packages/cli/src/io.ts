// The process's streams and environment, passed in so that nothing below main.ts reaches for globals.

export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Read only by commands that take a password or secret. */
  stdin(): NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
}

export function processIo(): Io {
  return { stdout: process.stdout, stderr: process.stderr, stdin: () => process.stdin, env: process.env };
}
