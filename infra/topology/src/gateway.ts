// nginx as the topology's gateway: infra/gateway's configuration, rendered for the replicas, run
// in the foreground as a child process.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type GatewayOptions, renderGatewayConfig } from '../../gateway/render.ts';

export interface RunningGateway {
  configFile: string;
  /** nginx's master process; null once it has exited. */
  pid(): number | null;
  /** Stops it gracefully (SIGQUIT: requests in flight finish). */
  stop(): Promise<void>;
}

const nginx = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

export async function startGateway(options: GatewayOptions, log: (line: string) => void): Promise<RunningGateway> {
  if (!existsSync(nginx)) {
    throw new Error(`nginx is not installed (${nginx}): apt-get install nginx, or set NGINX_PATH`);
  }
  mkdirSync(options.runtimeDir, { recursive: true, mode: 0o755 });
  const configFile = join(options.runtimeDir, 'nginx.conf');
  writeFileSync(configFile, renderGatewayConfig(options));
  const args = ['-c', configFile, '-p', options.runtimeDir, '-e', 'stderr'];
  const check = spawnSync(nginx, ['-t', '-q', ...args], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`the gateway's configuration is refused by nginx:\n${check.stderr}`);
  const child: ChildProcess = spawn(nginx, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
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
      if (child.exitCode !== null) throw new Error(`nginx exited with code ${child.exitCode} while starting`);
      if (Date.now() > deadline) throw new Error(`nginx did not listen on ${address} within 10 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  return {
    configFile,
    pid: () => (child.exitCode === null && child.signalCode === null ? (child.pid ?? null) : null),
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGTERM'), 10_000);
      await exited;
      clearTimeout(timer);
    },
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
