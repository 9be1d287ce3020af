// What each service's entry point does around its own apps when it runs alone (its src/main.ts):
// a configuration it cannot run with ends it as a bad setting does, its log, metrics and tracing
// start before anything opens, and once its listeners are up the management listener and the
// drain on signals run it.
import { type Config, loadConfigOrExit, type ServiceName } from '@devplat/config';
import type { Database } from '@devplat/db';
import {
  type Closer,
  createLogger,
  drainOnSignals,
  type Logger,
  type NamedListener,
  openService,
  type ReadinessCheck,
  type RunningService,
} from '@devplat/http';
import type { KeyValueStore } from '@devplat/kv';
import { createMetrics, type Metrics } from '@devplat/metrics';
import { startTracing, type Tracing } from '@devplat/tracing';
import { openProcessDatabase, openProcessStore, tracingClosers, type Watched } from './stores.ts';

/** A service process's log, metrics and tracing. */
export interface Telemetry {
  logger: Logger;
  metrics: Metrics;
  tracing: Tracing;
}

/** Ends the process as a bad setting does: one line on standard error, exit 78 (EX_CONFIG). */
export function exitForConfiguration(message: string): never {
  process.stderr.write(`configuration error: ${message}\n`);
  process.exit(78); // EX_CONFIG
}

/**
 * A service of the split deployment shares PostgreSQL and Redis with the others (the embedded
 * database and the in-process store serve one process only): without both URLs it ends.
 */
export function requireSharedStores(config: Pick<Config, 'databaseUrl' | 'redisUrl'>, service: string): void {
  if (config.databaseUrl && config.redisUrl) return;
  exitForConfiguration(`${service} alone needs DATABASE_URL and REDIS_URL`);
}

/** The service's telemetry, its log lines named for it; a bad tracing setting ends the process. */
export function startTelemetry(config: Pick<Config, 'logLevel'>, service: ServiceName): Telemetry {
  return {
    logger: createLogger(config.logLevel, service),
    metrics: createMetrics(),
    tracing: loadConfigOrExit(process.env, (env) => startTracing({ serviceName: service, env })),
  };
}

/** PostgreSQL and Redis as the split deployment's services share them (requireSharedStores first). */
export async function openSharedStores(
  config: Config,
  { metrics, tracing }: Telemetry,
): Promise<Watched & { database: Database; store: KeyValueStore }> {
  const postgres = await openProcessDatabase(config, metrics, tracing);
  const redis = await openProcessStore(config, metrics, tracing);
  return {
    database: postgres.database,
    store: redis.store,
    checks: [...postgres.checks, ...redis.checks],
    closers: [...redis.closers, ...postgres.closers],
  };
}

export interface ServiceRun {
  config: Config;
  telemetry: Telemetry;
  /** What /readyz asks. */
  checks: ReadinessCheck[];
  listeners: NamedListener[];
  /** What the drain closes after the listeners, in order; the tracing's last export follows them. */
  closers: Closer[];
}

/**
 * Runs the service: its management listener (/livez, /readyz, /metrics) and the drain on SIGTERM
 * and SIGINT. Signals are handled before the entry point writes its ready line: a supervisor may
 * signal the moment it reads it.
 */
export async function runService(
  name: ServiceName,
  { config, telemetry: { logger, metrics, tracing }, checks, listeners, closers }: ServiceRun,
): Promise<RunningService> {
  const service = await openService({
    name,
    config,
    logger,
    checks,
    registry: metrics.registry,
    listeners,
    closers: [...closers, ...tracingClosers(tracing)],
  });
  drainOnSignals(service, logger);
  return service;
}
