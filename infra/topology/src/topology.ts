// The split platform on one machine, as a deployment runs it: nginx in front of 2 auth, 2 api,
// 2 worker and 1 console process (and the contract mock), each on ports of its own, on one
// PostgreSQL database and one Redis index of their own, sharing their secrets; and one admin API
// process on loopback beside them, which the gateway never routes to.
import { join } from 'node:path';
import { type CpuController, cpuController, type Throttling } from './cpu-limits.ts';
import type { RunningGateway } from './gateway.ts';
import { startGateway } from './gateway.ts';
import { freePort } from './ports.ts';
import { signal } from './processes.ts';
import { type Replica, type ReplicaPorts, replica, type ServiceName } from './replica.ts';
import { startWatchdog } from './watchdog.ts';

export type ReplicaCounts = Record<Exclude<ServiceName, 'mock' | 'admin'>, number>;

export const defaultReplicas: ReplicaCounts = { auth: 2, api: 2, worker: 2, console: 1 };

export interface SharedSecrets {
  SIGNING_KEYS: string;
  PAIRWISE_SECRET: string;
  COOKIE_KEYS: string;
}

export interface TopologyOptions {
  /** DATABASE_URL of the topology's own (migrated) database. */
  databaseUrl: string;
  /** REDIS_URL with the topology's own index (redis://host:port/N). */
  redisUrl: string;
  secrets: SharedSecrets;
  /** Where the gateway keeps its configuration, pid and temporary files. */
  runtimeDir: string;
  /** The gateway's ports: {base_url}'s (127.0.0.1), the player client's (127.0.0.2), the console's (127.0.0.3). */
  gatewayPorts?: { base: number; playerClient: number; console: number };
  replicas?: Partial<ReplicaCounts>;
  /**
   * A CPU limit for each process of a service, in CPUs (`{ api: 0.2 }`), as a Kubernetes limit:
   * the kernel's CPU quota (cpu-limits.ts). Throws CpuLimitsUnavailable where it cannot be set.
   */
  cpuLimits?: Partial<Record<ServiceName, number>>;
  /** Each process writes its lines to `<logDir>/<name>.log` itself instead of through `log`. */
  logDir?: string;
  /** TLS termination at the gateway (PEM files): every URL is then https. */
  tls?: { certificate: string; key: string } | null;
  /** The admin API's operator tokens file (ADMIN_TOKENS_FILE; default: admin-tokens in runtimeDir). */
  adminTokensFile?: string;
  /** Further settings for every process (LOG_LEVEL, SHUTDOWN_DELAY_MS, …). */
  env?: Record<string, string>;
  /** Every line a process or the gateway writes, prefixed with its name. */
  log?: (line: string) => void;
}

export interface Topology {
  /** What a person opens, by name, as `npm start` prints them (the admin API on its own listener). */
  urls: {
    'Public API': string;
    'Player client': string;
    Console: string;
    'Contract mock': string;
    'Admin API': string;
  };
  replicas: Replica[];
  /** The replicas of one service, in order. */
  of(service: ServiceName): Replica[];
  gateway: RunningGateway;
  /** Where the CPU limits are set (`cgroup v1 (/sys/fs/cgroup/cpu)`), or null without limits. */
  cpuLimits: string | null;
  /** Each limited process's limit and how often it was throttled so far (after `stop`, in all). */
  throttling(): ({ name: string; cpus: number } & Throttling)[];
  /** The environment every process shares (its secrets included: keep it out of output). */
  env: Record<string, string | undefined>;
  /**
   * Restarts the replicas one at a time (SIGTERM: the drain), each with `env` changed where given
   * and from the checkout `root` where given (a release: another build of the platform), each
   * ready before the next is stopped; resolves with the exit codes.
   */
  rollingRestart(replicas: Replica[], env?: Record<string, string>, root?: string): Promise<(number | null)[]>;
  /**
   * Drains every process, then stops the gateway; resolves once nothing it started is left. SIGINT
   * drains at once; SIGTERM with SHUTDOWN_DELAY_MS, but leaves a drain already under way as it is
   * (a second SIGINT would cut it short). Only the first call signals.
   */
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Kills every process at once (SIGKILL), synchronously: for a parent that is exiting. */
  kill(): void;
  /**
   * When a process exits that nobody stopped (through `stop`, `rollingRestart` or its replica's
   * `stop`), the topology stops the rest and this resolves with what happened: `api-1 exited with code 1`.
   */
  crashed: Promise<string>;
}

/** Settings that steer one process of the caller's, never the topology's. */
const notInherited = ['PORT', 'DATA_DIR', 'NODE_TEST_CONTEXT', 'MANAGEMENT_PORT', 'HOST', 'ADMIN_PORT', 'ADMIN_HOST'];

export async function startTopology(options: TopologyOptions): Promise<Topology> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const counts = { ...defaultReplicas, ...options.replicas };
  const gatewayPorts = options.gatewayPorts ?? {
    base: await freePort(),
    playerClient: await freePort(),
    console: await freePort(),
  };
  const internalPort = await freePort();
  const mockPort = await freePort();
  const adminPort = await freePort();
  const scheme = options.tls ? 'https' : 'http';
  const urls = {
    'Public API': `${scheme}://127.0.0.1:${gatewayPorts.base}/developer/v1`,
    'Player client': `${scheme}://127.0.0.2:${gatewayPorts.playerClient}`,
    Console: `${scheme}://127.0.0.3:${gatewayPorts.console}`,
    'Contract mock': `http://127.0.0.1:${mockPort}/developer/v1`,
    'Admin API': `http://127.0.0.1:${adminPort}/admin/v1`,
  };
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([name]) => !notInherited.includes(name)));
  const env = {
    ...inherited,
    DEVELOPER_PLATFORM_ENVIRONMENT: 'sandbox',
    ...options.env,
    DATABASE_URL: options.databaseUrl,
    REDIS_URL: options.redisUrl,
    ...options.secrets,
    BASE_URL: urls['Public API'],
    PLAYER_CLIENT_URL: urls['Player client'],
    CONSOLE_URL: urls.Console,
    MOCK_BASE_URL: urls['Contract mock'],
    AUTH_INTERNAL_URL: `http://127.0.0.1:${internalPort}`,
    // Every listener on 127.0.0.1; the gateway connects from there and is the only proxy believed.
    HOST: '127.0.0.1',
    TRUSTED_PROXIES: '127.0.0.1',
    ADMIN_TOKENS_FILE: options.adminTokensFile ?? join(options.runtimeDir, 'admin-tokens'),
  };

  const portsOf: Record<ServiceName, () => Promise<Omit<ReplicaPorts, 'management'>>> = {
    auth: async () => ({ public: await freePort(), playerClient: await freePort(), authInternal: await freePort() }),
    api: async () => ({ public: await freePort() }),
    console: async () => ({ console: await freePort() }),
    worker: async () => ({}),
    mock: async () => ({ mock: mockPort }),
    admin: async () => ({ admin: adminPort }),
  };
  const limits = Object.values(options.cpuLimits ?? {}).some((cpus) => cpus !== undefined);
  const controller: CpuController | null = limits ? cpuController() : null;
  const watchdog = startWatchdog();
  let stopping: Promise<void> | null = null;
  let reportCrash: (message: string) => void = () => {};
  const crashed = new Promise<string>((resolve) => {
    reportCrash = resolve;
  });
  const crashOf = (name: string) => (how: string) => {
    if (stopping) return;
    log(`topology: ${name} ${how}; stopping`);
    void stop().then(() => reportCrash(`${name} ${how}`));
  };
  const replicas: Replica[] = [];
  for (const service of ['auth', 'api', 'worker', 'console', 'mock', 'admin'] as const) {
    const count = service === 'mock' || service === 'admin' ? 1 : counts[service];
    for (let index = 1; index <= count; index++) {
      const ports = { ...(await portsOf[service]()), management: await freePort() };
      const name = `${service}-${index}`;
      const cpus = options.cpuLimits?.[service];
      const cpuLimit = controller && cpus !== undefined ? controller.limit(name, cpus) : undefined;
      const logFile = options.logDir ? join(options.logDir, `${name}.log`) : undefined;
      replicas.push(replica({ name, service, ports, env, log, logFile, cpuLimit, watchdog, onCrash: crashOf(name) }));
    }
  }
  const of = (service: ServiceName) => replicas.filter((each) => each.service === service);
  const at = (service: ServiceName, port: keyof ReplicaPorts) =>
    of(service).map((each) => `127.0.0.1:${each.ports[port]}`);

  const gateway = await startGateway(
    {
      runtimeDir: options.runtimeDir,
      accessLog: join(options.runtimeDir, 'access.log'),
      base: { listen: [`127.0.0.1:${gatewayPorts.base}`], host: '127.0.0.1' },
      auth: at('auth', 'public'),
      api: at('api', 'public'),
      playerClient: {
        listen: [`127.0.0.2:${gatewayPorts.playerClient}`],
        host: '127.0.0.2',
        servers: at('auth', 'playerClient'),
      },
      console: counts.console
        ? { listen: [`127.0.0.3:${gatewayPorts.console}`], host: '127.0.0.3', servers: at('console', 'console') }
        : null,
      internal: { listen: [`127.0.0.1:${internalPort}`], servers: at('auth', 'authInternal') },
      tls: options.tls ?? null,
    },
    log,
    { watchdog, onCrash: crashOf('gateway') },
  ).catch(async (error) => {
    await Promise.all(replicas.map((each) => each.stop('SIGKILL')));
    await watchdog.close();
    removeLimits();
    throw error;
  });
  function removeLimits() {
    for (const each of replicas) each.cpuLimit?.remove();
    controller?.close();
  }
  function stop(drainSignal: NodeJS.Signals = 'SIGINT') {
    stopping ??= (async () => {
      await Promise.all(replicas.map((each) => each.stop(drainSignal)));
      await gateway.stop();
      await watchdog.close();
      removeLimits();
    })();
    return stopping;
  }
  try {
    // auth first: the api's readiness asks for auth's key set.
    await Promise.all(of('auth').map((each) => each.start()));
    await Promise.all(replicas.filter((each) => each.service !== 'auth').map((each) => each.start()));
  } catch (error) {
    await stop();
    throw error;
  }
  const kill = () => {
    for (const each of replicas) signal(each.pid(), 'SIGKILL');
    gateway.kill();
  };
  const rollingRestart = async (some: Replica[], changes?: Record<string, string>, root?: string) => {
    const codes = [];
    for (const each of some) {
      codes.push(await each.restart(changes, root));
    }
    return codes;
  };
  const throttling = () =>
    replicas.flatMap(({ name, cpuLimit }) =>
      cpuLimit ? [{ name, cpus: cpuLimit.cpus, ...cpuLimit.throttling() }] : [],
    );
  return {
    urls,
    replicas,
    of,
    gateway,
    cpuLimits: controller?.describe ?? null,
    throttling,
    env,
    rollingRestart,
    stop,
    kill,
    crashed,
  };
}
