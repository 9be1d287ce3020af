// One replica of a service as its own process (node on the service's entry point, as a container
// runs it), with its own ports; started, stopped by a signal, and restarted on the same ports,
// from this checkout or another one (a release: the rolling-release test's next build).
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CpuLimit } from './cpu-limits.ts';
import { describeExit } from './processes.ts';
import type { Watchdog } from './watchdog.ts';

export type ServiceName = 'auth' | 'api' | 'worker' | 'console' | 'mock' | 'admin';

const entryPoints: Record<ServiceName, string> = {
  auth: 'services/auth/src/main.ts',
  api: 'services/api/src/main.ts',
  worker: 'services/worker/src/main.ts',
  console: 'services/console/src/main.ts',
  mock: 'services/mock/src/main.ts',
  admin: 'services/admin/src/serve.ts',
};

export const repoRoot = new URL('../../../', import.meta.url).pathname;

export interface ReplicaPorts {
  /** {base_url}'s listener (auth, api). */
  public?: number;
  playerClient?: number;
  authInternal?: number;
  console?: number;
  mock?: number;
  /** The admin API's listener (ADMIN_PORT), on loopback, never behind the gateway. */
  admin?: number;
  management: number;
}

export interface Replica {
  /** `auth-1`, `api-2`, … */
  name: string;
  service: ServiceName;
  ports: ReplicaPorts;
  /** http://127.0.0.1:port of its management listener (/livez, /readyz, /metrics). */
  management: string;
  /** The running process's id; null while stopped. */
  pid(): number | null;
  /** Its CPU limit (a control group of its own), if it was given one. */
  cpuLimit: CpuLimit | null;
  /** Starts the process and waits until /readyz answers 200. */
  start(): Promise<void>;
  /** Sends the signal and waits for the exit; resolves with the exit code (null after a kill). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /**
   * Stops (SIGTERM: the drain) and starts again, with `env` changed where given, and from the
   * checkout `root` (its entry point, its migrations) where given; it stays there for later restarts.
   */
  restart(env?: Record<string, string>, root?: string): Promise<number | null>;
}

export interface ReplicaOptions {
  name: string;
  service: ServiceName;
  ports: ReplicaPorts;
  env: Record<string, string | undefined>;
  /** Each line the process writes, prefixed with its name. */
  log: (line: string) => void;
  /**
   * Where the process writes its lines itself (appended), as a container runtime keeps a log file,
   * instead of through `log`: no reader of this process's is then on its path.
   */
  logFile?: string;
  /** The process enters this group as it starts, before the service runs, and keeps it across restarts. */
  cpuLimit?: CpuLimit;
  readyTimeoutMs?: number;
  /** Told of each process started and each exit, to stop what is left if the topology is killed. */
  watchdog?: Watchdog;
  /** An exit after it was ready that no stop asked for: `exited with code 1`, `was killed by SIGKILL`. */
  onCrash?: (how: string) => void;
}

/** The environment variables that put a replica's listeners on its ports. */
function portEnv(ports: ReplicaPorts): Record<string, string> {
  const names: Record<keyof ReplicaPorts, string> = {
    public: 'PORT',
    playerClient: 'PLAYER_CLIENT_PORT',
    authInternal: 'AUTH_INTERNAL_PORT',
    console: 'CONSOLE_PORT',
    mock: 'MOCK_PORT',
    admin: 'ADMIN_PORT',
    management: 'MANAGEMENT_PORT',
  };
  return Object.fromEntries(
    Object.entries(ports).map(([key, port]) => [names[key as keyof ReplicaPorts], String(port)]),
  );
}

export function replica(options: ReplicaOptions): Replica {
  const { name, service, ports, env, log, logFile, cpuLimit, readyTimeoutMs = 60_000, watchdog, onCrash } = options;
  const management = `http://127.0.0.1:${ports.management}`;
  let settings = { ...env, ...portEnv(ports) };
  let checkout = repoRoot;
  let child: ChildProcess | null = null;
  let exited: Promise<number | null> = Promise.resolve(null);
  // An exit after it was ready, with no stop asked for, is a crash.
  let ready = false;
  let stopAsked = false;

  async function start() {
    if (child) throw new Error(`${name} is already running`);
    // In the topology's process group (not detached): a signal to the group reaches it too. With a
    // CPU limit, a shell enters the group and execs node, so the limit holds from the first instruction.
    const node = [process.execPath, join(checkout, entryPoints[service])];
    const [command, ...args] = cpuLimit
      ? ['/bin/sh', '-c', 'echo $$ > "$0" && exec "$@"', cpuLimit.procsFile, ...node]
      : node;
    const output = logFile ? openSync(logFile, 'a') : 'pipe';
    const started = spawn(command as string, args, { cwd: checkout, env: settings, stdio: ['ignore', output, output] });
    if (typeof output === 'number') closeSync(output);
    child = started;
    ready = false;
    stopAsked = false;
    if (started.pid) watchdog?.watch(started.pid, 'SIGINT');
    exited = new Promise((resolve) =>
      started.once('exit', (code, signal) => {
        if (started.pid) watchdog?.unwatch(started.pid);
        child = null;
        if (ready && !stopAsked) onCrash?.(describeExit(code, signal));
        resolve(code);
      }),
    );
    for (const stream of [started.stdout, started.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', (line) => log(`[${name}] ${line}`));
    }
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await isReady(management))) {
      if (child !== started)
        throw new Error(`${name} ${describeExit(started.exitCode, started.signalCode)} while starting`);
      if (Date.now() > deadline) {
        await stop('SIGKILL');
        throw new Error(`${name} was not ready within ${readyTimeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    ready = true;
  }

  async function stop(signal: NodeJS.Signals = 'SIGTERM') {
    stopAsked = true;
    child?.kill(signal);
    return exited;
  }

  return {
    name,
    service,
    ports,
    management,
    pid: () => child?.pid ?? null,
    cpuLimit: cpuLimit ?? null,
    start,
    stop,
    async restart(changes = {}, root = checkout) {
      const code = await stop('SIGTERM');
      settings = { ...settings, ...changes };
      checkout = root;
      await start();
      return code;
    },
  };
}

async function isReady(management: string): Promise<boolean> {
  try {
    const response = await fetch(`${management}/readyz`, { signal: AbortSignal.timeout(2_000) });
    await response.body?.cancel();
    return response.status === 200;
  } catch {
    return false;
  }
}
