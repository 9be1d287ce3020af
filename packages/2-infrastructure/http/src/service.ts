// How every process runs: its management listener (/livez, /readyz, /metrics) on a port of its own,
// and a graceful drain on SIGTERM. Draining: readiness answers 503 and every answer closes its
// connection at once; after the delay (time for load balancers to notice) the public listeners stop
// accepting and finish what is in flight; then the rest closes in order (the worker, the stores);
// exit 0. Past the timeout the process exits anyway, with 1, saying what it cut.
import { type Config, defaultManagementPorts, type ServiceName } from '@devplat/config';
import type { Registry } from 'prom-client';
import type { Logger } from './logger.ts';
import { type Management, managementApp, type ReadinessCheck } from './management.ts';
import type { Route } from './route-table.ts';
import { listen, type RunningServer } from './server.ts';

/** A public listener, named for the log. */
export interface NamedListener {
  name: string;
  server: RunningServer;
  /** What it answers, from its apps' routers (route-table.ts), where the process knows them. */
  routes?: readonly Route[];
}

/** Something closed after the listeners, in order: the worker, then the stores. */
export interface Closer {
  name: string;
  close(timeoutMs: number): Promise<void>;
}

export interface ServicePlan {
  name: ServiceName;
  config: Config;
  logger: Logger;
  checks: ReadinessCheck[];
  registry: Registry;
  listeners: NamedListener[];
  closers: Closer[];
}

export interface DrainOutcome {
  /** What the timeout cut, in words; empty when everything finished. */
  cut: string[];
}

export interface RunningService {
  management: Management;
  managementServer: RunningServer;
  /** Drains as on SIGTERM; `delay` false skips SHUTDOWN_DELAY_MS (a person's Ctrl-C). */
  drain(options?: { delay?: boolean }): Promise<DrainOutcome>;
}

/** A /readyz check's bound: a probe's own timeout is a second by default in Kubernetes. */
export const readinessTimeoutMs = 1_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `work`'s outcome, or false once `ms` have passed. The timer ends with it: left running, it would
 * keep a process that drains without exiting (a test's, with the platform in it) alive until then.
 */
async function within<T>(work: Promise<T>, ms: number): Promise<T | false> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

export function managementPort(config: Config, name: ServiceName): number {
  return config.ports.management ?? defaultManagementPorts[name];
}

export async function openService(plan: ServicePlan): Promise<RunningService> {
  const { config, logger } = plan;
  // Probes arrive every few seconds: their request lines would drown the service's own.
  const probeLogger = logger.levelVal >= 40 ? logger : logger.child({}, { level: 'warn' }); // 40: pino's warn
  const management = managementApp({
    logger: probeLogger,
    checks: plan.checks,
    checkTimeoutMs: readinessTimeoutMs,
    registry: plan.registry,
  });
  const managementServer = await listen(
    management.app.callback(),
    config.host ?? '127.0.0.1',
    managementPort(config, plan.name),
  );
  let drained: Promise<DrainOutcome> | null = null;
  const drain = ({ delay = true } = {}) => {
    drained ??= drainAll(plan, management, managementServer, delay);
    return drained;
  };
  return { management, managementServer, drain };
}

async function drainAll(
  { config, logger, listeners, closers }: ServicePlan,
  management: Management,
  managementServer: RunningServer,
  delay: boolean,
): Promise<DrainOutcome> {
  const deadline = performance.now() + config.shutdown.timeoutMs;
  const left = () => Math.max(0, deadline - performance.now());
  const cut: string[] = [];
  management.drain();
  for (const { server } of listeners) server.windDown();
  const delayMs = delay ? Math.min(config.shutdown.delayMs, left()) : 0;
  logger.info({ delay_ms: delayMs, timeout_ms: config.shutdown.timeoutMs }, 'draining: readiness now answers 503');
  await sleep(delayMs);
  const closed = await Promise.all(listeners.map(({ server }) => server.close({ timeoutMs: left() })));
  closed.forEach(({ cut: requests }, index) => {
    if (requests > 0) cut.push(`${requests} request(s) in flight on the ${listeners[index]?.name} listener`);
  });
  for (const closer of closers) {
    const closed = closer.close(left()).then(
      () => true,
      (error: unknown) => {
        logger.warn({ error: (error as Error).message }, `draining: closing the ${closer.name} failed`);
        return true;
      },
    );
    if (!(await within(closed, left()))) cut.push(`closing the ${closer.name}`);
  }
  await managementServer.close({ timeoutMs: 1_000 });
  if (cut.length) logger.error({ cut }, `drain timed out after ${config.shutdown.timeoutMs} ms: cut ${cut.join('; ')}`);
  else logger.info('drained');
  return { cut };
}

/**
 * The entry point's signal handling: SIGTERM drains (with the delay), SIGINT too but at once (a
 * person at a terminal), and a second SIGINT exits at once. Exits 0 when everything finished, else 1.
 * The exit writes the log lines gathered but not yet written (stdout-lines.ts).
 */
export function drainOnSignals(service: RunningService, logger: Logger): void {
  const finish = (outcome: DrainOutcome) => process.exit(outcome.cut.length ? 1 : 0);
  let interrupted = false;
  process.once('SIGTERM', () => void service.drain({ delay: true }).then(finish));
  process.on('SIGINT', () => {
    if (interrupted) {
      logger.warn('second interrupt: exiting without finishing the drain');
      process.exit(130);
    }
    interrupted = true;
    void service.drain({ delay: false }).then(finish);
  });
}
