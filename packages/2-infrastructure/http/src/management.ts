// The management listener every process opens on its own port (never a public one): /livez says
// the process runs, /readyz whether it should get traffic (each dependency answering within a
// bound, and not draining), /metrics the Prometheus text of its registry. Each readiness answer is
// also recorded in devplat_ready (and its changes counted) for the alerts; a scrape that finds no
// evaluation in the last 15 s runs one first, so the gauge holds where nothing probes.
import { DependencyUnavailableError } from '@devplat/errors';
import { metricsOf } from '@devplat/metrics';
import Router from '@koa/router';
import type Koa from 'koa';
import type { Registry } from 'prom-client';
import { apiApp } from './api-app.ts';
import type { Logger } from './logger.ts';
import { operation } from './routes.ts';

/**
 * One thing readiness needs: resolves when it holds, rejects (its message the reason) otherwise. It
 * may resolve with what it found, an answer starting `ok: ` (the schema check: "ok: newer schema, …").
 */
export interface ReadinessCheck {
  name: string;
  check(): Promise<unknown>;
}

export interface ManagementOptions {
  logger: Logger;
  checks: ReadinessCheck[];
  /** A check that has not answered by then counts as failed. */
  checkTimeoutMs: number;
  /** The process's metrics (createMetrics in @devplat/metrics). */
  registry: Registry;
}

export interface Management {
  app: Koa;
  registry: Registry;
  /** From now on /readyz answers 503 draining: load balancers stop sending traffic. */
  drain(): void;
}

/** Whether a check's answer says it held: `ok`, or `ok: ` and what it found. */
const held = (result: string | undefined) => result === 'ok' || result?.startsWith('ok: ') === true;

/**
 * What a check answers within the bound: 'ok' or the reason it failed. Until its first 'ok' a check
 * whose store is unreachable or slow answers 'connecting': the first connections of a starting
 * process (through a busy network, say) take longer than a query on an open one.
 */
function bounded(check: ReadinessCheck, timeoutMs: number, connected: boolean): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(connected ? `did not answer within ${timeoutMs} ms` : 'connecting'), timeoutMs);
  });
  const answered = check.check().then(
    (found) => (typeof found === 'string' && held(found) ? found : 'ok'),
    (error: unknown) => {
      if (!connected && error instanceof DependencyUnavailableError) return 'connecting';
      return error instanceof Error ? error.message : String(error);
    },
  );
  return Promise.race([answered, late]).finally(() => clearTimeout(timer));
}

/** Older than this, readiness is evaluated again before a scrape is answered. */
const readinessFreshMs = 15_000;

export function managementApp({ logger, checks, checkTimeoutMs, registry }: ManagementOptions): Management {
  let draining = false;
  let evaluatedAt = Number.NEGATIVE_INFINITY;
  const connected = new Set<string>();
  const health = metricsOf(registry);
  const record = (ready: boolean) => {
    evaluatedAt = performance.now();
    health?.recordReadiness(ready);
  };
  const evaluate = async () => {
    const results = await Promise.all(checks.map((check) => bounded(check, checkTimeoutMs, connected.has(check.name))));
    const answers = Object.fromEntries(checks.map((check, index) => [check.name, results[index]]));
    for (const [name, result] of Object.entries(answers)) if (held(result)) connected.add(name);
    const ready = results.every(held);
    if (!draining) record(ready);
    return { ready, answers };
  };
  const router = new Router({ strict: true, sensitive: true });
  operation(router, '/livez', {
    GET: (ctx) => {
      ctx.body = { status: 'alive' };
    },
  });
  operation(router, '/readyz', {
    GET: async (ctx) => {
      if (draining) {
        record(false);
        ctx.status = 503;
        ctx.body = { status: 'draining', checks: {} };
        return;
      }
      const { ready, answers } = await evaluate();
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ready' : 'not_ready', checks: answers };
    },
  });
  operation(router, '/metrics', {
    GET: async (ctx) => {
      if (health && performance.now() - evaluatedAt > readinessFreshMs) {
        if (draining) record(false);
        else await evaluate();
      }
      ctx.type = registry.contentType;
      ctx.body = await registry.metrics();
    },
  });
  return {
    app: apiApp({ logger }, router),
    registry,
    drain: () => {
      draining = true;
      record(false);
    },
  };
}
