// One replica of a service as its own process (node on the service's entry point, as a container
// runs it), with its own ports; started, stopped by a signal, and restarted on the same ports.
import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export type ServiceName = 'auth' | 'api' | 'worker' | 'console' | 'mock';

const entryPoints: Record<ServiceName, string> = {
  auth: 'services/auth/src/main.ts',
  api: 'services/api/src/main.ts',
  worker: 'services/worker/src/main.ts',
  console: 'services/console/src/main.ts',
  mock: 'services/mock/src/main.ts',
};

export const repoRoot = new URL('../../../', import.meta.url).pathname;

export interface ReplicaPorts {
  /** {base_url}'s listener (auth, api). */
  public?: number;
  playerClient?: number;
  authInternal?: number;
  console?: number;
  mock?: number;
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
  /** Starts the process and waits until /readyz answers 200. */
  start(): Promise<void>;
  /** Sends the signal and waits for the exit; resolves with the exit code (null after a kill). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  /** Stops (SIGTERM: the drain) and starts again, with `env` changed where given. */
  restart(env?: Record<string, string>): Promise<number | null>;
}

export interface ReplicaOptions {
  name: string;
  service: ServiceName;
  ports: ReplicaPorts;
  env: Record<string, string | undefined>;
  /** Each line the process writes, prefixed with its name. */
  log: (line: string) => void;
  readyTimeoutMs?: number;
}

/** The environment variables that put a replica's listeners on its ports. */
function portEnv(ports: ReplicaPorts): Record<string, string> {
  const names: Record<keyof ReplicaPorts, string> = {
    public: 'PORT',
    playerClient: 'PLAYER_CLIENT_PORT',
    authInternal: 'AUTH_INTERNAL_PORT',
    console: 'CONSOLE_PORT',
    mock: 'MOCK_PORT',
    management: 'MANAGEMENT_PORT',
  };
  return Object.fromEntries(
    Object.entries(ports).map(([key, port]) => [names[key as keyof ReplicaPorts], String(port)]),
  );
}

export function replica({ name, service, ports, env, log, readyTimeoutMs = 60_000 }: ReplicaOptions): Replica {
  const management = `http://127.0.0.1:${ports.management}`;
  let settings = { ...env, ...portEnv(ports) };
  let child: ChildProcess | null = null;
  let exited: Promise<number | null> = Promise.resolve(null);

  async function start() {
    if (child) throw new Error(`${name} is already running`);
    const started = spawn(process.execPath, [entryPoints[service]], {
      cwd: repoRoot,
      env: settings,
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a terminal's Ctrl-C reaches the topology, which drains each once.
      detached: true,
    });
    child = started;
    exited = new Promise((resolve) =>
      started.once('exit', (code) => {
        if (child === started) child = null;
        resolve(code);
      }),
    );
    for (const stream of [started.stdout, started.stderr]) {
      if (stream) createInterface({ input: stream }).on('line', (line) => log(`[${name}] ${line}`));
    }
    const deadline = Date.now() + readyTimeoutMs;
    while (!(await isReady(management))) {
      if (started.exitCode !== null) throw new Error(`${name} exited with code ${started.exitCode} while starting`);
      if (Date.now() > deadline) {
        await stop('SIGKILL');
        throw new Error(`${name} was not ready within ${readyTimeoutMs} ms`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  async function stop(signal: NodeJS.Signals = 'SIGTERM') {
    const running = child;
    if (!running) return exited;
    running.kill(signal);
    return exited;
  }

  return {
    name,
    service,
    ports,
    management,
    pid: () => child?.pid ?? null,
    start,
    stop,
    async restart(changes = {}) {
      const code = await stop('SIGTERM');
      settings = { ...settings, ...changes };
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
