// Starts the platform's real entry points as child processes and waits for them to be ready.
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

export const repoRoot = new URL('../../', import.meta.url).pathname;

// Ports for test listeners come from below the kernel's ephemeral range (32768 and up), where
// nothing else picks one: a port taken from that range with listen(0) could be handed, before the
// process that is to bind it has started, to another test's outgoing connection (EADDRINUSE).
const firstPort = 20_000;
const portCount = 12_000;

/** A port no listener holds on 127.0.0.1, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = firstPort + Math.floor(Math.random() * portCount);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
    if (attempt >= 100) throw new Error('no free port below the ephemeral range');
  }
}

export interface StartedProcess {
  child: ChildProcess;
  output(): string;
  /** Sends SIGTERM to the whole process group and resolves with the exit code. */
  stop(): Promise<number | null>;
}

/** Spawns `command` in its own process group and waits until its stdout matches `ready`. */
export async function startProcess(
  command: string,
  args: string[],
  env: Record<string, string | undefined>,
  ready: RegExp,
  timeoutMs = 60_000,
): Promise<StartedProcess> {
  const child = spawn(command, args, { cwd: repoRoot, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.pid) process.kill(-child.pid, 'SIGTERM');
    return exited;
  };
  const deadline = Date.now() + timeoutMs;
  while (!ready.test(output)) {
    if (child.exitCode !== null) throw new Error(`${command} exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${command} was not ready within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, output: () => output, stop };
}
