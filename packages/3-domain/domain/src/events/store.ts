// The only module that reads or writes outbox_events and webhook_deliveries: each consent event an
// app is told of, and each delivery of it to the app's webhook URL. The worker's statements (the
// outbox pass, the claim, the record of an attempt) join the app's webhook URL or signing secret
// into the one statement that locks the batch, on purpose: a second read per batch would only add
// round trips (the ownership test lists it as a hot-path read of apps).
import type { DeliveryStatus } from '@devplat/contract';
import { type OutboxEvent, Prisma, type PrismaClient, type WebhookDelivery } from '@devplat/db';
import type { Db } from '../db.ts';

export interface NewEvent {
  type: 'consent.granted' | 'consent.revoked';
  appId: string;
  payload: Prisma.InputJsonObject;
  createdAt?: Date;
  /** Set when the event's deliveries are made with it, so the outbox pass leaves it alone. */
  enqueuedAt?: Date;
}

export const insertEvent = (tx: Prisma.TransactionClient, event: NewEvent): Promise<OutboxEvent> =>
  tx.outboxEvent.create({ data: event });

export interface NewDelivery {
  eventId: string;
  appId: string;
  url: string;
  isTest?: boolean;
  replayOf?: string;
}

export const insertDelivery = (tx: Prisma.TransactionClient, delivery: NewDelivery): Promise<WebhookDelivery> =>
  tx.webhookDelivery.create({ data: delivery });

// --- The worker: outbox pass, claims, attempts ---

interface WaitingEvent {
  id: string;
  app_id: string;
  webhook_url: string | null;
}

/**
 * Takes up to `limit` events not yet enqueued (oldest first) and makes one pending delivery of each
 * to its app's webhook URL of that moment (none when the app has none), exactly once; resolves with
 * how many events it took.
 */
export function enqueueEvents(prisma: PrismaClient, limit: number): Promise<number> {
  return prisma.$transaction(async (tx) => {
    // SKIP LOCKED: two workers take disjoint batches instead of waiting for each other.
    const events = await tx.$queryRaw<WaitingEvent[]>`
      SELECT e.id::text AS id, e.app_id::text AS app_id, a.webhook_url
      FROM outbox_events e JOIN apps a ON a.id = e.app_id
      WHERE e.enqueued_at IS NULL
      ORDER BY e.created_at, e.id
      LIMIT ${limit}
      FOR UPDATE OF e SKIP LOCKED`;
    if (events.length === 0) return 0;
    const deliveries = events.flatMap((event) =>
      event.webhook_url ? [{ eventId: event.id, appId: event.app_id, url: event.webhook_url }] : [],
    );
    if (deliveries.length > 0) await tx.webhookDelivery.createMany({ data: deliveries });
    await tx.outboxEvent.updateMany({
      where: { id: { in: events.map((event) => event.id) } },
      data: { enqueuedAt: new Date() },
    });
    return events.length;
  });
}

/**
 * Seconds since the oldest event still waiting was written: not yet enqueued, or with a delivery
 * still pending; null when none waits.
 */
export async function oldestUndeliveredAgeSeconds(prisma: PrismaClient): Promise<number | null> {
  const [row] = await prisma.$queryRaw<{ age: number | null }[]>`
    SELECT EXTRACT(EPOCH FROM now() - LEAST(
      (SELECT min(created_at) FROM outbox_events WHERE enqueued_at IS NULL),
      (SELECT min(e.created_at) FROM webhook_deliveries d JOIN outbox_events e ON e.id = d.event_id
        WHERE d.status = 'pending')
    ))::float8 AS age`;
  return row?.age ?? null;
}

/**
 * The worker's backlog: events not yet turned into deliveries, and deliveries whose attempt is due
 * and unclaimed (a delivery waiting out its backoff is not due), with how long the oldest of them has
 * been due. Both walk an index: (enqueued_at, created_at) and (status, next_attempt_at).
 */
export async function outboxBacklog(
  prisma: PrismaClient,
): Promise<{ due: number; oldestDueAgeSeconds: number | null }> {
  const [row] = await prisma.$queryRaw<{ due: number; age: number | null }[]>`
    WITH waiting AS (
      SELECT created_at AS due_at FROM outbox_events WHERE enqueued_at IS NULL
      UNION ALL
      SELECT next_attempt_at FROM webhook_deliveries
        WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
    )
    SELECT count(*)::int AS due, EXTRACT(EPOCH FROM now() - min(due_at))::float8 AS age FROM waiting`;
  return { due: row?.due ?? 0, oldestDueAgeSeconds: row?.age ?? null };
}

export interface ClaimedDelivery {
  id: string;
  eventId: string;
  url: string;
  attempts: number;
  /** The lease; the outcome is recorded only while it is still this worker's. */
  lockedUntil: Date;
  eventType: string;
  eventCreatedAt: Date;
  payload: unknown;
  signingSecret: string | null;
}

interface ClaimedRow {
  id: string;
  event_id: string;
  url: string;
  attempts: number;
  locked_until: Date;
  type: string;
  created_at: Date;
  payload: unknown;
  webhook_signing_secret: string | null;
}

/**
 * Claims up to `limit` due deliveries for `leaseMs`, with what sending them needs. One statement
 * locks and marks them, so two workers never send the same attempt at once. A claim is a lease: a
 * worker that dies mid-attempt leaves it to expire, and another worker sends again (at least once,
 * never lost).
 */
export async function claimDueDeliveries(
  prisma: PrismaClient,
  limit: number,
  leaseMs: number,
): Promise<ClaimedDelivery[]> {
  // The due rows are picked once, in a CTE: under `IN (subquery)` the planner may evaluate the
  // LIMITed, SKIP LOCKED subquery more than once and claim more rows than asked for.
  const rows = await prisma.$queryRaw<ClaimedRow[]>`
    WITH due AS (
      SELECT id FROM webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= now() AND (locked_until IS NULL OR locked_until < now())
      ORDER BY next_attempt_at
      LIMIT ${limit}
      FOR UPDATE SKIP LOCKED
    ), claimed AS (
      UPDATE webhook_deliveries d SET locked_until = now() + ${leaseMs}::int * interval '1 millisecond'
      FROM due WHERE d.id = due.id
      RETURNING d.id, d.event_id, d.app_id, d.url, d.attempts, d.locked_until
    )
    SELECT c.id::text AS id, c.event_id::text AS event_id, c.url, c.attempts, c.locked_until,
      e.type, e.created_at, e.payload, a.webhook_signing_secret
    FROM claimed c
    JOIN outbox_events e ON e.id = c.event_id
    JOIN apps a ON a.id = c.app_id`;
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    url: row.url,
    attempts: Number(row.attempts),
    lockedUntil: new Date(row.locked_until),
    eventType: row.type,
    eventCreatedAt: new Date(row.created_at),
    payload: row.payload,
    signingSecret: row.webhook_signing_secret,
  }));
}

/** What one attempt changes of a delivery: its outcome, or only the lease released. */
export type AttemptRecord = Pick<
  Prisma.WebhookDeliveryUpdateManyMutationInput,
  'status' | 'attempts' | 'lastStatusCode' | 'lastError' | 'deliveredAt' | 'nextAttemptAt' | 'lockedUntil'
>;

/**
 * Records an attempt while the lease is still the claimant's (a lease that expired and was taken by
 * another worker is theirs to record). Resolves with whether the record was written.
 */
export async function recordAttempt(
  prisma: PrismaClient,
  claim: Pick<ClaimedDelivery, 'id' | 'lockedUntil'>,
  record: AttemptRecord,
): Promise<boolean> {
  const { count } = await prisma.webhookDelivery.updateMany({
    where: { id: claim.id, status: 'pending', lockedUntil: claim.lockedUntil },
    data: record,
  });
  return count === 1;
}

// --- Replays ---

/** A delivery with its app and its event's type, locked for the replay's transaction. */
export async function lockDeliveryForReplay(tx: Prisma.TransactionClient, deliveryId: string) {
  const delivery = await tx.webhookDelivery.findUnique({
    where: { id: deliveryId },
    include: { app: true, event: { select: { type: true } } },
  });
  if (!delivery) return null;
  // Two replays of one delivery at once: the second waits here and then finds the first's replay.
  await tx.$queryRaw`SELECT id FROM webhook_deliveries WHERE id = ${delivery.id}::uuid FOR UPDATE`;
  return delivery;
}

export async function replayOf(tx: Prisma.TransactionClient, deliveryId: string): Promise<string | null> {
  const replay = await tx.webhookDelivery.findFirst({ where: { replayOf: deliveryId }, select: { id: true } });
  return replay?.id ?? null;
}

// --- Reads for the console and devplat listen ---

const deliveryListLimit = 100;

/**
 * Deliveries of one app, newest first, at most 100, optionally only one status. The failed list
 * is what still needs the developer: a failed delivery that was replayed leaves it.
 */
export async function deliveriesOfApp(db: Db, appId: string, status?: DeliveryStatus) {
  const replayed =
    status === 'failed'
      ? await db.webhookDelivery.findMany({ where: { appId, replayOf: { not: null } }, select: { replayOf: true } })
      : [];
  return db.webhookDelivery.findMany({
    where: {
      appId,
      ...(status ? { status } : {}),
      ...(replayed.length ? { id: { notIn: replayed.map((replay) => replay.replayOf as string) } } : {}),
    },
    include: { event: { select: { type: true } } },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: deliveryListLimit,
  });
}

/** An app's deliveries made since `since`, per UTC day (YYYY-MM-DD) and status now. */
export const deliveriesPerDay = (db: Db, appId: string, since: Date) =>
  db.$queryRaw<{ day: string; what: string; n: number }[]>`
    SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, status::text AS what, count(*)::int AS n
      FROM webhook_deliveries WHERE app_id = ${appId}::uuid AND created_at >= ${since} GROUP BY 1, 2`;

/** The app's events written after `from`, oldest first, leaving out `sent`. */
export const eventsOfAppSince = (db: Db, appId: string, from: Date, sent: string[], limit: number) =>
  db.outboxEvent.findMany({
    where: { appId, createdAt: { gt: from }, id: { notIn: sent } },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    take: limit,
  });

/** When the app's event `eventId` was written; null when it is not one of the app's. */
export const eventTimeOfApp = (db: Db, appId: string, eventId: string) =>
  db.outboxEvent.findFirst({ where: { id: eventId, appId }, select: { createdAt: true } });

// --- Retention (admin janitor) ---

const cutoff = (days: number) => Prisma.sql`now() - make_interval(days => ${days}::int)`;

// A delivery is done once it succeeded or failed for good, measured from its last attempt:
// delivered_at, or for a failed one next_attempt_at (the final attempt's due time, which the worker
// leaves as it was). A failed delivery stays replayable in the console for the whole retention.
// An attempt never starts before next_attempt_at, so the first condition on it only lets the
// (status, next_attempt_at) index find the rows.
const deliveryDone = (days: number) => Prisma.sql`
  d.status IN ('succeeded', 'failed') AND d.next_attempt_at < ${cutoff(days)}
  AND COALESCE(d.delivered_at, d.next_attempt_at) < ${cutoff(days)}`;

const count = async (prisma: PrismaClient, query: Prisma.Sql) =>
  Number((await prisma.$queryRaw<{ n: bigint }[]>(query))[0]?.n ?? 0);

export const countFinishedDeliveries = (prisma: PrismaClient, days: number) =>
  count(prisma, Prisma.sql`SELECT count(*) AS n FROM webhook_deliveries d WHERE ${deliveryDone(days)}`);

/** One statement; rows another transaction holds (a claim, a replay) are skipped. */
export const deleteFinishedDeliveries = (prisma: PrismaClient, days: number, limit: number) =>
  prisma.$executeRaw`
    DELETE FROM webhook_deliveries WHERE id IN (
      SELECT d.id FROM webhook_deliveries d WHERE ${deliveryDone(days)}
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;

// Deliveries reference their event, so an event goes only once none is left (after the deliveries
// above), or when it never had one (its app had no webhook URL); either way once it was enqueued
// longer ago than the retention. The count is of the events whose remaining deliveries a run would
// all delete.
export const countFinishedEvents = (prisma: PrismaClient, days: number) =>
  count(
    prisma,
    Prisma.sql`
      SELECT count(*) AS n FROM outbox_events e
      WHERE e.enqueued_at < ${cutoff(days)}
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id AND NOT (${deliveryDone(days)}))`,
  );

export const deleteFinishedEvents = (prisma: PrismaClient, days: number, limit: number) =>
  prisma.$executeRaw`
    DELETE FROM outbox_events WHERE id IN (
      SELECT e.id FROM outbox_events e
      WHERE e.enqueued_at < ${cutoff(days)}
        AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)
      LIMIT ${limit} FOR UPDATE SKIP LOCKED)`;
