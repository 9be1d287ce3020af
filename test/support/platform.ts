// The whole platform in this process on a fresh test database (and REDIS_URL when set), reachable
// at a real port, as an app developer would meet it.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@devplat/config';
import { type RunningPlatform, startPlatform } from '@devplat/platform';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { sharedSecrets } from './env.ts';
import { freePort } from './process.ts';

export interface TestPlatform {
  base: string;
  origin: string;
  playerClient: string;
  /** CONSOLE_URL: the developer console's web UI, and its JSON API under /api */
  console: string;
  /** AUTH_INTERNAL_URL */
  internal: string;
  platform: RunningPlatform;
  database: TestDatabase;
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
}

export async function startTestPlatform(
  env: Record<string, string> = {},
  { databaseVia, ...startOptions }: TestPlatformOptions = {},
): Promise<TestPlatform> {
  const database = await createTestDatabase();
  const platformDatabaseUrl = database.url && databaseVia ? databaseVia(database.url) : database.url;
  const dataDir = mkdtempSync(join(tmpdir(), 'devplat-platform-'));
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
    ...env,
  });
  const ownConnections = platformDatabaseUrl !== database.url;
  const platform = await startPlatform(config, ownConnections ? startOptions : { database, ...startOptions });
  return {
    base: `${origin}/developer/v1`,
    origin,
    playerClient: config.playerClientUrl.origin,
    console: config.consoleUrl.origin,
    internal: config.authInternalUrl.origin,
    platform,
    database,
    close: async () => {
      await platform.close();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
