// The whole platform in this process on a fresh test database (and REDIS_URL when set), reachable
// at a real port, as an app developer would meet it: at its own listeners (the `npm start` door) or,
// with DEVPLAT_TEST_DOOR=gateway, through the topology's nginx gateway in front of them. A test
// uses the URLs it is given and cannot tell the doors apart; the second pass proves an app cannot.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Config, loadConfig } from '@devplat/config';
import { type RunningPlatform, type StartOptions, startPlatform } from '@devplat/platform';
import { type RunningGateway, startGateway } from '@devplat/topology';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { sharedSecrets } from './env.ts';
import { freePort } from './process.ts';
import { untilReady } from './services.ts';

/** The door the tests reach the platform by: DEVPLAT_TEST_DOOR (test/run.mjs sets it per pass). */
export const testDoor: 'direct' | 'gateway' = process.env.DEVPLAT_TEST_DOOR === 'gateway' ? 'gateway' : 'direct';

export interface TestPlatform {
  base: string;
  origin: string;
  playerClient: string;
  /** CONSOLE_URL: the developer console's web UI, and its JSON API under /api */
  console: string;
  /** AUTH_INTERNAL_URL */
  internal: string;
  /** DATA_DIR: where the console serves the built docs from (its docs/). */
  dataDir: string;
  platform: RunningPlatform;
  database: TestDatabase;
  /** The nginx gateway in front (DEVPLAT_TEST_DOOR=gateway), else null. */
  gateway: RunningGateway | null;
  close(): Promise<void>;
}

export interface TestPlatformOptions {
  webhookWorker?: boolean;
  /**
   * The URL the platform reaches the test database by (a fault proxy's), given the database's
   * own: the platform then opens its own connections, with the configured bounds, while
   * `database` stays a direct connection for the test's set-up. Real PostgreSQL only.
   */
  databaseVia?: (url: string) => string;
  /** Where the platform's log lines go (LOG_LEVEL decides which); none by default. */
  logDestination?: StartOptions['logDestination'];
  /**
   * Returned once /readyz answers 200 (within 15 s, else the start fails), as a supervisor sends
   * traffic: a process whose first connections are still opening answers 503. false for a
   * platform started with a store down on purpose.
   */
  ready?: boolean;
}

export async function startTestPlatform(
  env: Record<string, string> = {},
  { databaseVia, ready = true, ...startOptions }: TestPlatformOptions = {},
): Promise<TestPlatform> {
  const database = await createTestDatabase();
  const platformDatabaseUrl = database.url && databaseVia ? databaseVia(database.url) : database.url;
  const dataDir = mkdtempSync(join(tmpdir(), 'devplat-platform-'));
  const gatewayDir = mkdtempSync(join(tmpdir(), 'devplat-gateway-'));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const playerClient = `http://127.0.0.2:${await freePort()}`;
  const config = loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    BASE_URL: `${origin}/developer/v1`,
    PLAYER_CLIENT_URL: playerClient,
    CONSOLE_URL: `http://127.0.0.3:${await freePort()}`,
    AUTH_INTERNAL_URL: `http://127.0.0.1:${await freePort()}`,
    MOCK_BASE_URL: `http://127.0.0.1:${await freePort()}/developer/v1`,
    ...(platformDatabaseUrl ? { DATABASE_URL: platformDatabaseUrl } : {}),
    // Each test platform keeps its own Redis keys: sign-in throttles count per client address, and
    // every test signs in from 127.0.0.1.
    ...(process.env.REDIS_URL
      ? { REDIS_URL: process.env.REDIS_URL, REDIS_KEY_PREFIX: `devplat-test:${randomUUID()}:`, ...sharedSecrets }
      : {}),
    MANAGEMENT_PORT: '0',
    ...(testDoor === 'gateway' ? await behindGateway() : {}),
    ...env,
  });
  const ownConnections = platformDatabaseUrl !== database.url;
  const platform = await startPlatform(config, ownConnections ? startOptions : { database, ...startOptions });
  let gateway: RunningGateway | null = null;
  try {
    if (ready) await untilReady({ management: platform.urls.Management as string });
    if (testDoor === 'gateway') gateway = await startTestGateway(config, gatewayDir);
  } catch (error) {
    await platform.close();
    throw error;
  }
  return {
    base: `${origin}/developer/v1`,
    origin,
    playerClient: config.playerClientUrl.origin,
    console: config.consoleUrl.origin,
    internal: config.authInternalUrl.origin,
    dataDir: config.dataDir,
    platform,
    database,
    gateway,
    close: async () => {
      await gateway?.stop();
      await platform.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(gatewayDir, { recursive: true, force: true });
    },
  };
}

/** The platform's own listeners on ports of their own, behind the gateway on the URLs' ports. */
async function behindGateway(): Promise<Record<string, string>> {
  return {
    HOST: '127.0.0.1',
    TRUSTED_PROXIES: '127.0.0.1',
    PORT: String(await freePort()),
    PLAYER_CLIENT_PORT: String(await freePort()),
    CONSOLE_PORT: String(await freePort()),
  };
}

/** nginx in front of the platform's listeners, its files in a directory of its own (`runtimeDir`). */
function startTestGateway(config: Config, runtimeDir: string): Promise<RunningGateway> {
  const site = (url: URL) => ({ listen: [url.host], host: url.hostname });
  const listener = (port: number) => `127.0.0.1:${port}`;
  const publicListener = listener(config.port as number);
  return startGateway(
    {
      runtimeDir,
      workerProcesses: 1,
      accessLog: join(runtimeDir, 'access.log'),
      base: site(config.baseUrl),
      auth: [publicListener],
      api: [publicListener],
      playerClient: { ...site(config.playerClientUrl), servers: [listener(config.ports.playerClient)] },
      console: { ...site(config.consoleUrl), servers: [listener(config.ports.console)] },
    },
    () => {},
  );
}
