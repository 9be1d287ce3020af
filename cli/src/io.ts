// The process's streams and environment, passed in so that nothing below main.ts reaches for globals.

export interface Io {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  /** Read only by commands that take a password or secret. */
  stdin(): NodeJS.ReadStream;
  env: NodeJS.ProcessEnv;
  /** Aborted by Ctrl-C or SIGTERM: read only by commands that run until stopped (listen). */
  interrupted(): AbortSignal;
}

export function processIo(): Io {
  return {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: () => process.stdin,
    env: process.env,
    interrupted() {
      const stop = new AbortController();
      for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
      return stop.signal;
    },
  };
}
