// Runs devplat as a real child process (node cli/src/main.ts), as a developer would.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const mainPath = new URL('../src/main.ts', import.meta.url).pathname;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: Record<string, string | undefined>;
  /** Written to stdin, which is then closed; without it stdin is /dev/null. */
  input?: string;
}

/** What would open a real browser from devplat try: never inherited from the developer's session. */
const browserSettings = ['BROWSER', 'DISPLAY', 'WAYLAND_DISPLAY'];

/** The environment without the developer's own DEVPLAT_* and browser settings, plus `extra`. */
export function cliEnv(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries({ ...process.env, ...extra })) {
    const own = name.startsWith('DEVPLAT_') || browserSettings.includes(name);
    if (value !== undefined && (!own || name in extra)) env[name] = value;
  }
  return env;
}

export interface RunningCli {
  child: ChildProcess;
  /** Resolves with stderr once it matches, or rejects when the process ends first or time runs out. */
  waitForStderr(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** The same for stdout (a command that prints as it goes). */
  waitForStdout(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  done: Promise<CliResult>;
}

export function startCli(args: string[], options: CliOptions = {}): RunningCli {
  const child = spawn(process.execPath, [mainPath, ...args], {
    env: cliEnv(options.env),
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  if (options.input !== undefined) child.stdin?.end(options.input);
  const done = new Promise<CliResult>((resolve) => child.once('close', (code) => resolve({ code, stdout, stderr })));
  let ended = false;
  void done.then(() => {
    ended = true;
  });
  const waitFor = async (read: () => string, pattern: RegExp, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = pattern.exec(read());
      if (match) return match;
      if (ended || Date.now() > deadline) {
        throw new Error(`devplat ${args.join(' ')} did not print ${pattern}:\n${stdout}\n${stderr}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  return {
    child,
    done,
    waitForStderr: (pattern, timeoutMs = 20_000) => waitFor(() => stderr, pattern, timeoutMs),
    waitForStdout: (pattern, timeoutMs = 20_000) => waitFor(() => stdout, pattern, timeoutMs),
  };
}

export const runCli = (args: string[], options: CliOptions = {}) => startCli(args, options).done;

const scratchDirs: string[] = [];
process.once('exit', () => {
  for (const directory of scratchDirs) rmSync(directory, { recursive: true, force: true });
});

/** A fresh directory, removed when the test process exits. */
export function scratchDir(name: string): string {
  const directory = mkdtempSync(join(tmpdir(), `devplat-cli-${name}-`));
  scratchDirs.push(directory);
  return directory;
}

/** A developer's terminal: one console, one config directory. */
export function developerShell(consoleUrl: string, configDir = scratchDir('config')) {
  const env = (extra: Record<string, string | undefined> = {}) => ({
    DEVPLAT_CONSOLE_URL: consoleUrl,
    DEVPLAT_CONFIG_DIR: configDir,
    ...extra,
  });
  return {
    configDir,
    run: (args: string[], options: CliOptions = {}) => runCli(args, { ...options, env: env(options.env) }),
    start: (args: string[], options: CliOptions = {}) => startCli(args, { ...options, env: env(options.env) }),
    /** Runs a command that must succeed and returns its stdout parsed as JSON (with --json added). */
    async json<T = unknown>(args: string[], options: CliOptions = {}): Promise<T> {
      const result = await runCli([...args, '--json'], { ...options, env: env(options.env) });
      if (result.code !== 0) throw new Error(`devplat ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
      return JSON.parse(result.stdout) as T;
    },
  };
}
