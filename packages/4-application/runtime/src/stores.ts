// What every process opens besides its listeners: its tracing, its database and its store, with
// what /readyz asks of each (its answer also kept in devplat_dependency_up), what /metrics reads of
// their pools, and how the drain closes them.
import type { Config, StoreSettings } from '@devplat/config';
import { type Database, databaseChecks, openDatabase, prepareEmbeddedDatabase } from '@devplat/db';
import { registryIsEmpty, seedRegistry } from '@devplat/domain/registry';
import { type Closer, type ReadinessCheck, readinessTimeoutMs } from '@devplat/http';
import { type KeyValueStore, memoryStore, redisConnectionsOf, redisStore } from '@devplat/kv';
import type { Dependency, Metrics, PoolReading } from '@devplat/metrics';
import { noopTracing, type Tracing } from '@devplat/tracing';

/** A dependency's readiness checks and how the drain closes it. */
export interface Watched {
  checks: ReadinessCheck[];
  closers: Closer[];
}

/** The drain's last step: the spans still queued are exported (within about two seconds). */
export function tracingClosers(tracing: Tracing): Closer[] {
  return tracing.enabled ? [{ name: 'tracing', close: () => tracing.shutdown() }] : [];
}

/** DATABASE_URL's PostgreSQL, or the embedded one. */
export async function openProcessDatabase(
  config: Config,
  metrics: Metrics,
  tracing: Tracing = noopTracing,
): Promise<Watched & { database: Database }> {
  const database = config.databaseUrl
    ? await openDatabase({ databaseUrl: config.databaseUrl, timeoutMs: config.databaseTimeoutMs, tracing })
    : await openEmbeddedDatabase(config.dataDir);
  return { database, ...watchDatabase(database, metrics, true) };
}

/** The embedded PGlite, with the sample city registry loaded the first time it is created. */
async function openEmbeddedDatabase(dataDir: string | null): Promise<Database> {
  const { database, created } = await prepareEmbeddedDatabase(dataDir);
  if (created && (await registryIsEmpty(database.prisma))) await seedRegistry(database.prisma);
  return database;
}

/** REDIS_URL's store, or one in this process (correct only for the one-process platform). */
export async function openProcessStore(
  config: Config,
  metrics: Metrics,
  tracing: Tracing = noopTracing,
): Promise<Watched & { store: KeyValueStore }> {
  const store = config.redisUrl ? openRedisStore(config, config.redisUrl) : memoryStore();
  for (const { client } of redisConnectionsOf(store)) tracing.redis(client);
  await store.ready();
  return { store, ...watchStore(store, metrics) };
}

/** The store on REDIS_URL's Redis, reached as REDIS_SENTINELS or REDIS_CLUSTER_NODES say. */
export function openRedisStore(settings: StoreSettings, url: string): KeyValueStore {
  return redisStore(url, {
    prefix: settings.redisKeyPrefix,
    timeoutMs: settings.redisTimeoutMs,
    topology: settings.redisTopology,
    waitReplicas: settings.redisWaitReplicas,
  });
}

/** `owned`: the drain closes it (false for a database a test lends the process). */
export function watchDatabase(database: Database, metrics: Metrics, owned: boolean): Watched {
  metrics.watchPools(() => database.pools().map(({ name, ...stats }) => ({ pool: name, ...stats })));
  return {
    checks: databaseChecks(database).map((check) =>
      check.name === 'postgresql' ? recorded(check, 'postgresql', metrics) : check,
    ),
    closers: owned ? [{ name: 'database', close: () => database.close() }] : [],
  };
}

export function watchStore(store: KeyValueStore, metrics: Metrics): Watched {
  metrics.watchPools(() => redisReading(store));
  return {
    checks: [recorded({ name: 'redis', check: () => store.ping() }, 'redis', metrics)],
    closers: [{ name: 'store', close: () => store.close() }],
  };
}

/**
 * The check, its answer also recorded as the store up or down: down once it fails, or has not
 * answered within readiness's own bound (a store that takes the bytes and never answers).
 */
function recorded(check: ReadinessCheck, dependency: Dependency, metrics: Metrics): ReadinessCheck {
  return {
    name: check.name,
    check: () => {
      let inTime = true;
      const late = setTimeout(() => {
        inTime = false;
        metrics.recordDependency(dependency, false);
      }, readinessTimeoutMs).unref();
      const settle = (up: boolean) => {
        clearTimeout(late);
        metrics.recordDependency(dependency, up && inTime);
      };
      return check.check().then(
        (found) => {
          settle(true);
          return found;
        },
        (error: unknown) => {
          settle(false);
          throw error;
        },
      );
    },
  };
}

/** Each pool of Redis connections: how many are open, and the commands waiting on them. */
function redisReading(store: KeyValueStore): PoolReading[] {
  const pools = new Map<string, PoolReading>();
  for (const { pool, client } of redisConnectionsOf(store)) {
    const reading = pools.get(pool) ?? { pool, total: 0, idle: 0, waiting: 0, max: 0 };
    const connected = client.status === 'ready' ? 1 : 0;
    const pending = (client as unknown as { commandQueue?: { length: number } }).commandQueue?.length ?? 0;
    pools.set(pool, {
      pool,
      total: reading.total + connected,
      idle: reading.idle + (pending === 0 ? connected : 0),
      waiting: reading.waiting + pending,
      max: reading.max + 1,
    });
  }
  return [...pools.values()];
}
