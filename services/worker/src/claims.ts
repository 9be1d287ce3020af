// Claiming due deliveries: one statement locks and marks them, so two workers never send the same
// attempt at once. A claim is a lease: a worker that dies mid-attempt leaves it to expire, and
// another worker sends again (at least once, never lost).
import type { PrismaClient } from '@devplat/db';

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

/** Claims up to `limit` due deliveries for `leaseMs`, with what sending them needs. */
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
