// Every metric family a process exports, in one place (docs/operating.md lists them). Labels are
// bounded: a route template, a method, a status, a grant type, an OAuth or Problem error code, an
// outcome, a store, a sign-in door; never a client id, token, user or a path parameter's value.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { createHealthMetrics, type HealthMetrics } from './health.ts';

/** A connection pool's state at scrape time. */
export interface PoolReading {
  pool: string;
  total: number;
  idle: number;
  waiting: number;
  max: number;
}

export interface Metrics extends HealthMetrics {
  registry: Registry;
  /** One observation per answered request, labelled by the Koa app that answered it. */
  requests: Histogram<'app' | 'route' | 'method' | 'status'>;
  /** 5xx answers by their error code: what tells a failure from FEATURE_DISABLED, a 503 by design. */
  serverErrors: Counter<'app' | 'route' | 'method' | 'code'>;
  tokensIssued: Counter<'grant_type'>;
  oauthRefusals: Counter<'endpoint' | 'error'>;
  /** Consents the token endpoint ended because a used code or refresh token came back (code_replay, refresh_token_replay). */
  consentsEndedAsReplay: Counter<'reason'>;
  /** Keys per round trip of a group-committed read: liveness, app_directory or consent_of_grant. */
  batchSize: Histogram<'read'>;
  batchSeconds: Histogram<'read'>;
  webhookAttempts: Counter<'outcome'>;
  webhookAttemptSeconds: Histogram<'outcome'>;
  /** Reads each pool's state whenever Prometheus scrapes. */
  watchPools(read: () => PoolReading[]): void;
  /** Reads the age of the oldest undelivered webhook event whenever Prometheus scrapes. */
  watchOldestUndelivered(read: () => Promise<number | null>): void;
}

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The method label: one of the usual ones, else OTHER. */
export function methodLabel(method: string): string {
  return methods.has(method) ? method : 'OTHER';
}

// Seconds: the hot routes answer in about a millisecond, webhook attempts within 10 s.
const requestBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const batchBuckets = [1, 2, 5, 10, 20, 50, 100];

/** The Metrics each registry was made for: what the management listener records readiness in. */
const madeFor = new WeakMap<Registry, Metrics>();

export function metricsOf(registry: Registry): Metrics | undefined {
  return madeFor.get(registry);
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const registers = [registry];
  const poolReaders: (() => PoolReading[])[] = [];
  const pools = () => poolReaders.flatMap((read) => read());
  let oldestUndelivered: (() => Promise<number | null>) | null = null;

  for (const [name, help, field] of [
    ['devplat_pool_connections', 'Open connections of a pool (PostgreSQL: prisma, query; Redis: redis).', 'total'],
    ['devplat_pool_idle_connections', 'Idle connections of a pool.', 'idle'],
    ['devplat_pool_waiting_calls', 'Calls waiting for a connection of a pool (queued commands for Redis).', 'waiting'],
    ['devplat_pool_max_connections', 'The size limit of a pool.', 'max'],
  ] as const) {
    new Gauge({
      name,
      help,
      labelNames: ['pool'],
      registers,
      collect() {
        this.reset();
        for (const reading of pools()) this.set({ pool: reading.pool }, reading[field]);
      },
    });
  }
  new Gauge({
    name: 'devplat_webhook_oldest_undelivered_age_seconds',
    help: 'Age of the oldest consent event not yet delivered (0 when none waits); the worker exports it.',
    registers,
    async collect() {
      if (!oldestUndelivered) return;
      this.set((await oldestUndelivered().catch(() => null)) ?? 0);
    },
  });

  const metrics: Metrics = {
    ...createHealthMetrics(registry),
    registry,
    requests: new Histogram({
      name: 'devplat_http_request_duration_seconds',
      help: 'Requests answered, by the app that answered, route template, method and status, with their latency.',
      labelNames: ['app', 'route', 'method', 'status'],
      buckets: requestBuckets,
      registers,
    }),
    serverErrors: new Counter({
      name: 'devplat_http_server_errors_total',
      help: 'Answers with a 5xx status, by app, route template, method and error code (a Problem code, an OAuth error, or none).',
      labelNames: ['app', 'route', 'method', 'code'],
      registers,
    }),
    tokensIssued: new Counter({
      name: 'devplat_oauth_tokens_issued_total',
      help: 'Access tokens issued at the token endpoint, by grant type.',
      labelNames: ['grant_type'],
      registers,
    }),
    oauthRefusals: new Counter({
      name: 'devplat_oauth_refusals_total',
      help: 'OAuth error answers, by endpoint (token, revocation, authorization) and OAuth error code.',
      labelNames: ['endpoint', 'error'],
      registers,
    }),
    consentsEndedAsReplay: new Counter({
      name: 'devplat_consents_ended_as_replay_total',
      help: 'Consents ended because a used code (code_replay) or refresh token (refresh_token_replay) was presented again.',
      labelNames: ['reason'],
      registers,
    }),
    batchSize: new Histogram({
      name: 'devplat_batch_read_size',
      help: 'Keys per round trip of the per-request reads (liveness: token checks; app_directory: client lookups; consent_of_grant: consent checks; active_player: the status of signed-in players).',
      labelNames: ['read'],
      buckets: batchBuckets,
      registers,
    }),
    batchSeconds: new Histogram({
      name: 'devplat_batch_read_duration_seconds',
      help: 'Round-trip latency of the per-request reads, by read.',
      labelNames: ['read'],
      buckets: requestBuckets,
      registers,
    }),
    webhookAttempts: new Counter({
      name: 'devplat_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome (delivered, failed, abandoned).',
      labelNames: ['outcome'],
      registers,
    }),
    webhookAttemptSeconds: new Histogram({
      name: 'devplat_webhook_attempt_duration_seconds',
      help: 'Webhook attempt latency, connection to last byte, by outcome.',
      labelNames: ['outcome'],
      buckets: requestBuckets,
      registers,
    }),
    watchPools: (read) => void poolReaders.push(read),
    watchOldestUndelivered: (read) => {
      oldestUndelivered = read;
    },
  };
  madeFor.set(registry, metrics);
  return metrics;
}

/** Wraps a batch read so each round trip records its size and latency. */
export function observedBatch<K, V>(
  metrics: Metrics | undefined,
  read: string,
  run: (keys: K[]) => Promise<V[]>,
): (keys: K[]) => Promise<V[]> {
  if (!metrics) return run;
  const size = metrics.batchSize.labels(read);
  const seconds = metrics.batchSeconds.labels(read);
  return async (keys) => {
    size.observe(keys.length);
    const end = seconds.startTimer();
    try {
      return await run(keys);
    } finally {
      end();
    }
  };
}
