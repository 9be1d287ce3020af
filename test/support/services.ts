// The split deployment's services as real processes (node on each entry point, as a container runs
// them), each with its own ports and a management listener, on one test database and Redis.
import { randomUUID } from 'node:crypto';
import { setTimeout } from 'node:timers/promises';
import { sharedSecrets } from './env.ts';
import { freePort, type StartedProcess, startProcess } from './process.ts';

export type ServiceName = 'auth' | 'api' | 'worker' | 'console';

const entryPoints: Record<ServiceName, string> = {
  auth: 'services/auth/src/main.ts',
  api: 'services/api/src/main.ts',
  worker: 'services/worker/src/main.ts',
  console: 'services/console/src/main.ts',
};

const readyLines: Record<ServiceName, RegExp> = {
  auth: /auth service: /,
  api: /api service: /,
  worker: /Webhook worker is running/,
  console: /developer console: /,
};

/** The environment every process of one deployment shares, less what steers a test's processes. */
export function deploymentEnv(settings: Record<string, string>): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {
    ...process.env,
    LOG_LEVEL: 'warn',
    SHUTDOWN_DELAY_MS: '0',
    REDIS_KEY_PREFIX: `devplat-test:${randomUUID()}:`,
    ...sharedSecrets,
    ...settings,
  };
  for (const name of ['PORT', 'DATA_DIR', 'NODE_TEST_CONTEXT']) delete env[name];
  return env;
}

export interface Deployment {
  base: string;
  playerClient: string;
  internal: string;
  env: Record<string, string | undefined>;
}

/** URLs for one deployment: {base_url} on the api's port, the player client, the internal JWKS. */
export async function plannedDeployment(settings: Record<string, string>): Promise<Deployment> {
  const base = `http://127.0.0.1:${await freePort()}/developer/v1`;
  const playerClient = `http://127.0.0.2:${await freePort()}`;
  const internal = `http://127.0.0.1:${await freePort()}`;
  return {
    base,
    playerClient,
    internal,
    env: deploymentEnv({
      BASE_URL: base,
      PLAYER_CLIENT_URL: playerClient,
      AUTH_INTERNAL_URL: internal,
      CONSOLE_URL: `http://127.0.0.3:${await freePort()}`,
      ...settings,
    }),
  };
}

export interface RunningProcess extends StartedProcess {
  /** http://127.0.0.1:port of its management listener. */
  management: string;
  /** Its public listener's origin, where it has one. */
  origin: string | null;
}

/**
 * Starts one service with the deployment's environment plus `env`; MANAGEMENT_PORT is its own.
 * With `wrapperTask` (api:start, say) it runs through the npm scripts' wrapper instead.
 */
export async function startService(
  name: ServiceName,
  deployment: Deployment,
  env: Record<string, string> = {},
  wrapperTask?: string,
): Promise<RunningProcess> {
  const started = await startProcess(
    process.execPath,
    wrapperTask ? ['infra/toolchain/run.mjs', wrapperTask] : [entryPoints[name]],
    { ...deployment.env, MANAGEMENT_PORT: '0', ...env },
    readyLines[name],
  );
  const management = /management: (http:\/\/\S+?),?\s/.exec(started.output())?.[1];
  if (!management) throw new Error(`${name} printed no management origin:\n${started.output()}`);
  const origin = /(?:auth|api) service: (http:\/\/[^/\s]+)/.exec(started.output())?.[1] ?? null;
  return { ...started, management, origin };
}

export async function readiness(process: { management: string }) {
  const response = await fetch(`${process.management}/readyz`);
  return {
    status: response.status,
    body: (await response.json()) as { status: string; checks: Record<string, string> },
  };
}

/**
 * Polls /readyz until 200, as a supervisor waits before it sends traffic: a process that has just
 * started may still be opening its first connections (its checks say 'connecting').
 */
export async function untilReady(process: { management: string }, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ready = await readiness(process);
    if (ready.status === 200) return ready;
    if (Date.now() > deadline) {
      throw new Error(`${process.management} not ready within ${timeoutMs} ms: ${JSON.stringify(ready.body)}`);
    }
    await setTimeout(50);
  }
}
