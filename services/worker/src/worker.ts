// The webhook worker: every pollMs it turns new outbox events into deliveries, claims the due ones
// and sends them, a few at a time. It survives PostgreSQL going away (the pass fails, is logged
// once, and is tried again next tick) and idles while webhooks are switched off.
import { type Config, sandboxToolsEnabled } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import {
  type ClaimedDelivery,
  claimDueDeliveries,
  enqueueEvents,
  oldestUndeliveredAgeSeconds,
  outboxBacklog,
} from '@devplat/domain/events';
import type { Logger } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import { noopTracing, type SpanHandle, type Tracing } from '@devplat/tracing';
import { recordOutcome, sendClaimed } from './attempts.ts';

export interface WebhookWorkerDeps {
  config: Config;
  prisma: PrismaClient;
  logger: Logger;
  metrics?: Metrics;
  /** A span per attempt, with the statements recording its outcome inside it. */
  tracing?: Tracing;
}

export interface WebhookWorker {
  /** For the drain: stop within `timeoutMs`, leaving a second to give abandoned leases back. */
  close(timeoutMs: number): Promise<void>;
  /**
   * Stops polling and waits for the attempts in flight to finish, up to `graceMs` (default 5 s);
   * those still running then are abandoned and their leases given back.
   */
  stop(graceMs?: number): Promise<void>;
}

/** Events one outbox pass takes. */
const outboxBatchSize = 100;
/** Attempts in flight at once, per worker. */
const maxParallel = 8;
/** Beyond the attempt's own time limit, how long a claim lasts: time to record the outcome. */
const leaseMarginMs = 5_000;
/** How long stop() lets attempts in flight finish before abandoning them (their claims are released). */
const defaultGraceMs = 5_000;

/** For logs: what failed, without a stack or anything a query carried. */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  const code = (error as { code?: unknown }).code;
  const firstLine = error.message.split('\n').find((line) => line.trim() !== '') ?? '';
  return `${error.name}${typeof code === 'string' ? ` ${code}` : ''}: ${firstLine.trim().slice(0, 200)}`;
}

export function startWebhookWorker({
  config,
  prisma,
  logger,
  metrics,
  tracing = noopTracing,
}: WebhookWorkerDeps): WebhookWorker {
  const settings = config.webhooks;
  // The contract: webhooks are sandbox only, under the platform switch.
  const enabled = sandboxToolsEnabled(config);
  const inFlight = new Set<Promise<void>>();
  const abandon = new AbortController();
  let stopping = false;
  let failing = false;
  /** The last claim took every free slot: more may be due as soon as one frees up. */
  let backlog = false;
  let wake: (() => void) | null = null;

  metrics?.watchOldestUndelivered(() => oldestUndeliveredAgeSeconds(prisma));
  // Only while it sends: switched off, events wait by design and no backlog is the worker's to clear.
  if (enabled) metrics?.watchOutbox(() => outboxBacklog(prisma));

  const attempt = (delivery: ClaimedDelivery) =>
    tracing.span(
      'webhook attempt',
      {
        'devplat.webhook.event_id': delivery.eventId,
        'devplat.webhook.event_type': delivery.eventType,
        'devplat.webhook.attempt': delivery.attempts + 1,
        'server.address': URL.parse(delivery.url)?.hostname,
      },
      (span) => sendAndRecord(span, delivery),
    );

  const sendAndRecord = async (span: SpanHandle, delivery: ClaimedDelivery) => {
    const started = performance.now();
    const outcome = await sendClaimed(delivery, settings, abandon.signal);
    span.set('devplat.webhook.outcome', outcome.result);
    if (outcome.result === 'failed') span.fail(outcome.statusCode === null ? 'no_answer' : String(outcome.statusCode));
    metrics?.webhookAttempts.inc({ outcome: outcome.result });
    metrics?.webhookAttemptSeconds.observe({ outcome: outcome.result }, (performance.now() - started) / 1000);
    const log = { delivery_id: delivery.id, event_id: delivery.eventId, attempt: delivery.attempts + 1 };
    if (outcome.result === 'failed') logger.info({ ...log, error: outcome.error }, 'webhook attempt failed');
    else logger.debug({ ...log, result: outcome.result }, 'webhook attempt');
    try {
      await recordOutcome(prisma, delivery, outcome, settings);
    } catch (error) {
      // The claim expires and another pass sends again: at least once.
      logger.warn({ ...log, error: describe(error) }, 'could not record a webhook attempt; it will be retried');
    }
  };

  const track = (delivery: ClaimedDelivery) => {
    const running: Promise<void> = attempt(delivery).finally(() => {
      inFlight.delete(running);
      if (backlog) wake?.();
    });
    inFlight.add(running);
  };

  /** One pass; resolves with whether to run the next one at once rather than after pollMs. */
  const pass = async (): Promise<boolean> => {
    const enqueued = await enqueueEvents(prisma, outboxBatchSize);
    const free = maxParallel - inFlight.size;
    const claimed =
      free > 0 && !stopping ? await claimDueDeliveries(prisma, free, settings.timeoutMs + leaseMarginMs) : [];
    backlog = free > 0 && claimed.length === free;
    for (const delivery of claimed) track(delivery);
    return enqueued === outboxBatchSize;
  };

  const passSafely = async (): Promise<boolean> => {
    try {
      const again = await pass();
      if (failing) logger.info('webhook worker: the database answers again');
      failing = false;
      return again;
    } catch (error) {
      if (!failing)
        logger.error({ error: describe(error) }, 'webhook worker pass failed; retrying every poll interval');
      failing = true;
      return false;
    }
  };

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wake = null;
        resolve();
      }
      wake = done;
    });

  const run = async () => {
    if (!enabled) {
      logger.info('consent webhooks are switched off here (platform off or production): the worker idles');
      while (!stopping) await pause(60_000);
      return;
    }
    logger.info(
      { poll_ms: settings.pollMs, timeout_ms: settings.timeoutMs, max_attempts: settings.maxAttempts },
      'webhook worker started',
    );
    while (!stopping) {
      const again = await passSafely();
      if (!stopping) await pause(again ? 0 : settings.pollMs);
    }
  };

  const running = run();
  let stopped: Promise<void> | null = null;
  const worker: WebhookWorker = {
    close: (timeoutMs) => worker.stop(Math.max(0, timeoutMs - 1_000)),
    stop(graceMs = defaultGraceMs) {
      stopped ??= (async () => {
        stopping = true;
        wake?.();
        await running;
        const settled = Promise.allSettled(inFlight);
        let grace: NodeJS.Timeout | undefined;
        await Promise.race([settled, new Promise((resolve) => (grace = setTimeout(resolve, graceMs)))]);
        clearTimeout(grace);
        abandon.abort();
        await settled;
      })();
      return stopped;
    },
  };
  return worker;
}
