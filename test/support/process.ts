// Starts the platform's real entry points as child processes and waits for them to be ready.
import { type ChildProcess, spawn } from 'node:child_process';

export const repoRoot = new URL('../../', import.meta.url).pathname;

export { freePort } from '@devplat/topology';

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

export interface RunningProcess {
  child: ChildProcess;
  /** What it has written so far: stdout, stderr, and both as they came. */
  stdout(): string;
  output(): string;
  /** Resolves once it has exited, with all it wrote. */
  done: Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** Spawns `command` (stdin: `input`, or nothing) and collects what it writes. */
export function runProcess(
  command: string,
  args: string[],
  { cwd = repoRoot, env, input }: { cwd?: string; env: Record<string, string | undefined>; input?: string },
): RunningProcess {
  const child = spawn(command, args, { cwd, env, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  let output = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
    output += chunk;
  });
  if (input !== undefined) child.stdin?.end(input);
  const done = new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once('close', (code) => resolve({ code, stdout, stderr })),
  );
  return { child, stdout: () => stdout, output: () => output, done };
}
