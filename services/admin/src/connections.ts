// The stores a command works on: the deployment's PostgreSQL (DATABASE_URL, required) and, for the
// changes every process's app directory must hear of and the token counters show-app reads, its
// Redis (REDIS_URL, when set). The settings
// are read as the services read them (loadStoreSettings: the same names, *_FILE forms and
// messages); the admin command signs nothing and serves nothing, so the only secret it reads is
// PAIRWISE_SECRET, and only the commands that end consents. The Redis store and the app directory
// are loaded only by the commands that use them: without them `admin help` starts in half the time.
import type { AppDirectory } from '@devplat/app-directory';
import { ConfigError, loadConfig, loadStoreSettings, type StoreSettings } from '@devplat/config';
import { openDatabase, type PrismaClient, schemaVersionProblem } from '@devplat/db';
import { type KeyValueStore, memoryStore } from '@devplat/kv';
import type { TokenUsage } from '@devplat/usage';
import { AdminError, exitCodes, type Io } from './command.ts';

/** The settings a command that touches data needs; ConfigError (exit 78) when one is missing or bad. */
export function adminConfig(env: Record<string, string | undefined>): StoreSettings {
  const config = loadStoreSettings(env);
  if (config.databaseUrl === null) {
    throw new ConfigError('DATABASE_URL', "is required: the admin command works on the deployment's PostgreSQL");
  }
  return config;
}

/**
 * PAIRWISE_SECRET (or PAIRWISE_SECRET_FILE), read and checked as the services read it: the
 * consent.revoked events of the consents a command ends name each player by the app's pairwise
 * subject, which must be the one the auth service gave the app. ConfigError (exit 78) without it.
 */
export function pairwiseSecret(env: Record<string, string | undefined>): string {
  // Only these two variables: none of the services' other settings means anything here.
  const only = { PAIRWISE_SECRET: env.PAIRWISE_SECRET, PAIRWISE_SECRET_FILE: env.PAIRWISE_SECRET_FILE };
  const secret = loadConfig(only, { requireSharedSecrets: false }).secretSettings.pairwiseSecret;
  if (secret === null) {
    throw new ConfigError(
      'PAIRWISE_SECRET',
      "is required: the consent.revoked events name each player by the app's pairwise subject (the auth service's PAIRWISE_SECRET)",
    );
  }
  return secret;
}

/**
 * Runs work on the deployment's PostgreSQL, every call bounded by DATABASE_TIMEOUT_MS. First, as
 * /readyz does, the database must answer and hold this build's schema (exit 69 otherwise).
 */
export async function withDatabase<T>(config: StoreSettings, work: (prisma: PrismaClient) => Promise<T>): Promise<T> {
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    timeoutMs: config.databaseTimeoutMs,
    poolSize: 2,
  });
  try {
    const problem = await schemaVersionProblem(database.query);
    if (problem)
      throw new AdminError(exitCodes.unavailable, `the database does not hold this build's schema: ${problem}`);
    return await work(database.prisma);
  } finally {
    await database.close().catch(() => {});
  }
}

/** REDIS_URL's store, as the services open it, once it answers. */
async function openRedis(config: StoreSettings, url: string): Promise<KeyValueStore> {
  const { openRedisStore } = await import('@devplat/runtime');
  const store = openRedisStore(config, url);
  await store.ready();
  return store;
}

/**
 * Runs work with the app directory on REDIS_URL's store, so the version bumps of a change reach
 * every process's cache (the token endpoint's). Without REDIS_URL no other process can be told:
 * said on stderr.
 */
export async function withDirectory<T>(
  config: StoreSettings,
  prisma: PrismaClient,
  io: Io,
  work: (directory: AppDirectory) => Promise<T>,
): Promise<T> {
  const { appDirectory } = await import('@devplat/app-directory');
  let store: KeyValueStore;
  if (config.redisUrl) store = await openRedis(config, config.redisUrl);
  else {
    io.note(
      'note: REDIS_URL is unset, so no process was told of the change: the resource API checks every call in ' +
        'PostgreSQL and sees it at once, but a token endpoint that cached the app sees it within 60 s.',
    );
    store = memoryStore();
  }
  try {
    return await work(appDirectory(prisma, store));
  } finally {
    await store.close().catch(() => {});
  }
}

/**
 * Runs work with the token counters auth keeps on REDIS_URL's store (reads only); null without
 * REDIS_URL: a platform without Redis counts in its own memory, out of this command's reach.
 */
export async function withUsage<T>(config: StoreSettings, work: (usage: TokenUsage | null) => Promise<T>): Promise<T> {
  if (!config.redisUrl) return work(null);
  const { tokenUsage } = await import('@devplat/usage');
  const store = await openRedis(config, config.redisUrl);
  try {
    return await work(tokenUsage(store));
  } finally {
    await store.close().catch(() => {});
  }
}
