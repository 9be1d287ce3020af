// The local multi-replica topology (infra/topology) for a test file: nginx in front of 2 auth,
// 2 api, 2 worker and 1 console process, on a database and Redis key prefix of the file's own.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'node:test';
import {
  type Replica,
  type ReplicaCounts,
  startTopology,
  type Topology,
  type TopologyOptions,
} from '@devplat/topology';
import { consoleCall, type Developer, registerDeveloper } from './console-api.ts';
import { createTestDatabase, realPostgresUrl, type TestDatabase } from './database.ts';
import { sharedSecrets } from './env.ts';
import type { AppClient } from './oauth.ts';
import { freePort, type StartedProcess, startProcess } from './process.ts';

const redisServer = process.env.REDIS_URL?.trim() || null;
export const needsStores =
  realPostgresUrl && redisServer ? false : 'needs a real PostgreSQL and Redis (DATABASE_URL, REDIS_URL)';

/** The Redis index the topology tests keep to (each file under a key prefix of its own). */
const testRedisIndex = 2;

export interface TestTopology extends Topology {
  database: TestDatabase;
  /** {base_url}, the player client and the console, through the gateway. */
  base: string;
  playerClient: string;
  console: string;
  /** Every line the processes and the gateway wrote. */
  logs: string[];
  /**
   * What the gateway's access log and the processes wrote of these requests (by X-Request-ID), and
   * the gateway's own error log: for a failure's message.
   */
  explain(requestIds: string[]): string;
  /**
   * Stops everything and drops its database. With `keepLogs` (a test failed) the runtime folder
   * stays, with the processes' lines in processes.log beside the access log, and its path is printed.
   */
  close(options?: { keepLogs?: boolean }): Promise<void>;
}

export async function startTestTopology(
  env: Record<string, string> = {},
  replicas?: Partial<ReplicaCounts>,
  tls?: { certificate: string; key: string },
  /** Where the processes' lines go instead of `logs`: a benchmark counts them and keeps none. */
  sink?: (line: string) => void,
  /** CPU limits per service, and where each process writes its own log file instead. */
  more: Pick<TopologyOptions, 'cpuLimits' | 'logDir'> = {},
): Promise<TestTopology> {
  const database = await createTestDatabase();
  const redisUrl = new URL(redisServer as string);
  redisUrl.pathname = `/${testRedisIndex}`;
  const runtimeDir = mkdtempSync(join(tmpdir(), 'devplat-gateway-'));
  const logs: string[] = [];
  let topology: Topology;
  try {
    topology = await startTopology({
      databaseUrl: database.url as string,
      redisUrl: redisUrl.href,
      secrets: sharedSecrets as never,
      runtimeDir,
      replicas,
      tls,
      ...more,
      env: {
        REDIS_KEY_PREFIX: `devplat-topology:${randomBytes(6).toString('hex')}:`,
        SHUTDOWN_DELAY_MS: '4000',
        ...env,
      },
      log: sink ?? ((line) => logs.push(line)),
    });
  } catch (error) {
    await database.drop();
    throw new Error(`${(error as Error).message}\n${logs.join('\n')}`);
  }
  return {
    ...topology,
    database,
    base: topology.urls['Public API'],
    playerClient: topology.urls['Player client'],
    console: topology.urls.Console,
    logs,
    explain: (requestIds) => {
      const accessLog = join(runtimeDir, 'access.log');
      const accessLines = existsSync(accessLog) ? readFileSync(accessLog, 'utf8').split('\n') : [];
      const about = (id: string) => [...accessLines, ...logs].filter((line) => line.includes(id));
      const gatewayLines = logs.filter((line) => line.startsWith('[gateway]'));
      return [
        ...requestIds.map((id) => `${id}:\n  ${about(id).join('\n  ') || '(in no log)'}`),
        `gateway error log:\n  ${gatewayLines.join('\n  ') || '(nothing)'}`,
      ].join('\n');
    },
    close: async ({ keepLogs = false } = {}) => {
      await topology.stop();
      await database.drop();
      if (!keepLogs) {
        rmSync(runtimeDir, { recursive: true, force: true });
        return;
      }
      writeFileSync(join(runtimeDir, 'processes.log'), `${logs.join('\n')}\n`);
      process.stderr.write(`topology logs kept in ${runtimeDir} (access.log, processes.log)\n`);
    },
  };
}

/**
 * Whether a test of the calling file has failed so far (an afterEach notes it): for
 * `close({ keepLogs })`. TestContext.passed is Node's, not yet in its type declarations.
 */
export function failureWatch(): () => boolean {
  let failed = false;
  afterEach((t) => {
    failed ||= (t as { passed?: boolean }).passed === false;
  });
  return () => failed;
}

/** {base_url} on one replica's own listener, past the gateway. */
export const replicaBase = (replica: Replica) => `http://127.0.0.1:${replica.ports.public}/developer/v1`;

/** A developer, an app with a webhook URL and sandbox players, made through the gateway's console. */
export async function consoleSetup(
  topology: Pick<TestTopology, 'console'>,
  options: { webhookUrl?: string; players?: number } = {},
) {
  const developer: Developer = await registerDeveloper(topology.console);
  const api = (method: string, path: string, body?: unknown) =>
    consoleCall(topology.console, method, path, { token: developer.token, body });
  const created = await api('POST', '/apps', {
    name: 'Topology App',
    redirect_uris: ['http://127.0.0.1:9/callback'],
    scopes: ['city.public.read', 'profile.basic.read'],
    ...(options.webhookUrl ? { webhook_url: options.webhookUrl } : {}),
  });
  if (created.status !== 201) throw new Error(`app creation failed: ${created.text}`);
  const app: AppClient & { app: { redirectUris: string[] }; secretId: string; signingSecret: string } = {
    clientId: created.json.app.client_id,
    clientSecret: created.json.client_secret,
    secretId: created.json.app.secrets[0].secret_id,
    signingSecret: created.json.app.webhook_signing_secret,
    app: { redirectUris: created.json.app.redirect_uris },
  };
  const players = [];
  for (let index = 0; index < (options.players ?? 1); index++) {
    const username = `topo-${randomBytes(5).toString('hex')}`;
    const player = await api('POST', '/sandbox-players', {
      username,
      password: 'player password',
      display_name: 'Topo',
    });
    if (player.status !== 201) throw new Error(`player creation failed: ${player.text}`);
    players.push({ username, password: 'player password' });
  }
  return { developer, api, app, players };
}

/** `npm run topology` (its entry point) in a process group of its own, as a terminal runs it. */
export async function startTopologyCommand(
  database: string,
  /** Further flags: `--replicas api=1`, `--cpu api=0.2`. */
  flags: string[] = [],
): Promise<StartedProcess & { port: number }> {
  // Three ports in a row, as --port N takes them (nginx listens on N, N+1, N+2).
  let port = await freePort();
  while (port % 3 !== 0) port = await freePort();
  const started = await startProcess(
    process.execPath,
    ['infra/topology/src/main.ts', '--port', String(port), ...flags],
    { ...process.env, TOPOLOGY_DATABASE: database, TOPOLOGY_REDIS_DB: '3', NODE_TEST_CONTEXT: undefined },
    /Press Ctrl-C to stop\./,
    120_000,
  );
  return { ...started, port };
}
