// nginx as the topology's gateway: infra/gateway's configuration, rendered for the replicas, run
// in the foreground as a child process.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { type GatewayOptions, renderGatewayConfig } from '../../gateway/render.ts';
import { alive, childrenOf, describeExit, signal } from './processes.ts';
import type { Watchdog } from './watchdog.ts';

export interface RunningGateway {
  configFile: string;
  /** nginx's master process; null once it has exited. */
  pid(): number | null;
  /** Its worker processes (they hold the listening sockets too). */
  workers(): number[];
  /** Stops it gracefully (SIGQUIT: requests in flight finish); resolves once its workers are gone too. */
  stop(): Promise<void>;
  /** Kills the master and its workers at once (SIGKILL), synchronously: for a parent that is exiting. */
  kill(): void;
}

export interface GatewayHooks {
  /** Told of the master, to stop it if the topology is killed. */
  watchdog?: Watchdog;
  /** An exit after it listened that no stop asked for: `exited with code 1`, `was killed by SIGKILL`. */
  onCrash?: (how: string) => void;
}

const nginx = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

export async function startGateway(
  options: GatewayOptions,
  log: (line: string) => void,
  { watchdog, onCrash }: GatewayHooks = {},
): Promise<RunningGateway> {
  if (!existsSync(nginx)) {
    throw new Error(`nginx is not installed (${nginx}): apt-get install nginx, or set NGINX_PATH`);
  }
  mkdirSync(options.runtimeDir, { recursive: true });
  // nginx's workers run as nobody when it is started as root: they write request bodies over 16 KiB
  // to temporary files here (mkdtemp makes a directory 0700).
  chmodSync(options.runtimeDir, 0o755);
  const configFile = join(options.runtimeDir, 'nginx.conf');
  writeFileSync(configFile, renderGatewayConfig(options));
  const args = ['-c', configFile, '-p', options.runtimeDir, '-e', 'stderr'];
  const check = spawnSync(nginx, ['-t', '-q', ...args], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`the gateway's configuration is refused by nginx:\n${check.stderr}`);
  // In the topology's process group (not detached), its workers too (daemon off): a signal to the
  // group reaches every one.
  const child: ChildProcess = spawn(nginx, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const master = child.pid as number;
  // SIGTERM: a fast shutdown, in which the master stops its workers before it exits.
  watchdog?.watch(master, 'SIGTERM');
  let listening = false;
  let stopAsked = false;
  /** The workers as last seen (a master killed outright cannot be asked for them). */
  let lastWorkers: number[] = [];
  const exited = new Promise<void>((resolve) =>
    child.once('exit', (code, signalName) => {
      watchdog?.unwatch(master);
      if (!stopAsked) {
        // A master killed outright leaves its workers serving.
        for (const pid of lastWorkers.filter(alive)) signal(pid, 'SIGKILL');
        if (listening) onCrash?.(describeExit(code, signalName));
      }
      resolve();
    }),
  );
  const running = () => child.exitCode === null && child.signalCode === null;
  const workers = () => {
    if (running()) lastWorkers = childrenOf(master);
    return lastWorkers.filter(alive);
  };
  const kill = () => {
    stopAsked = true;
    const left = workers();
    // The master first: it would start a new worker in place of each one killed.
    if (running()) signal(master, 'SIGKILL');
    for (const pid of left) signal(pid, 'SIGKILL');
  };
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => log(`[gateway] ${line}`));
  }
  const addresses = [
    options.base,
    options.playerClient,
    ...(options.console ? [options.console] : []),
    ...(options.internal ? [options.internal] : []),
  ].flatMap((site) => site.listen);
  const deadline = Date.now() + 10_000;
  for (const address of addresses) {
    while (!(await accepts(address))) {
      if (!running()) throw new Error(`nginx ${describeExit(child.exitCode, child.signalCode)} while starting`);
      if (Date.now() > deadline) {
        kill();
        throw new Error(`nginx did not listen on ${address} within 10 s`);
      }
      await sleep(50);
    }
  }
  listening = true;
  workers();
  return {
    configFile,
    pid: () => (running() ? master : null),
    workers,
    async stop() {
      stopAsked = true;
      const left = workers();
      if (running()) {
        child.kill('SIGQUIT');
        // A connection that does not finish within 3 s is cut (SIGTERM: the fast shutdown).
        const timer = setTimeout(() => child.kill('SIGTERM'), 3_000);
        await exited;
        clearTimeout(timer);
      }
      // The master exits after its workers; this makes sure, as a worker holds the ports until it is gone.
      const until = Date.now() + 2_000;
      while (left.some(alive) && Date.now() < until) await sleep(20);
      for (const pid of left.filter(alive)) signal(pid, 'SIGKILL');
    },
    kill,
  };
}

function accepts(address: string): Promise<boolean> {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  return new Promise((resolve) => {
    const socket = connect({ host, port }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
