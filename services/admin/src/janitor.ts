// admin janitor: a one-shot job (for cron) deleting what has expired. Each kind is deleted in
// batches of `batchSize` rows, one statement each, so a large table is never locked for long; rows
// another transaction holds (a worker's claim, a replay in progress) are skipped and left to the
// next run. A failure ends the run: batches already deleted stay deleted, and a rerun carries on.
import { ConfigError } from '@devplat/config';
import type { PrismaClient } from '@devplat/db';
import {
  countFinishedDeliveries,
  countFinishedEvents,
  deleteFinishedDeliveries,
  deleteFinishedEvents,
} from '@devplat/domain/events';
import { countExpiredRevocations, deleteExpiredRevocations } from '@devplat/domain/revocations';
import { type Command, stringOption, usageError } from './command.ts';
import { adminConfig, withDatabase } from './connections.ts';

export const batchSize = 1000;
const defaultRetentionDays = 30;
const maxRetentionDays = 3650;

/** One kind of expired row: how to count it, and how to delete one batch of it. */
interface Kind {
  name: string;
  what: string;
  count(prisma: PrismaClient, retentionDays: number): Promise<number>;
  deleteBatch(prisma: PrismaClient, retentionDays: number): Promise<number>;
}

// Each kind is deleted through its owner's operations: the revocations room's and the events room's
// (packages/3-domain/domain), which say exactly which rows are finished.
const kinds: Kind[] = [
  {
    name: 'revoked-tokens',
    what: 'revoked access-token ids past expires_at',
    count: (prisma) => countExpiredRevocations(prisma),
    deleteBatch: (prisma) => deleteExpiredRevocations(prisma, batchSize),
  },
  {
    name: 'webhook-deliveries',
    what: 'webhook deliveries succeeded or failed before the retention',
    count: countFinishedDeliveries,
    deleteBatch: (prisma, days) => deleteFinishedDeliveries(prisma, days, batchSize),
  },
  {
    // After the deliveries above: deliveries reference their event. A dry run counts the events
    // whose remaining deliveries the run would all delete.
    name: 'outbox-events',
    what: 'outbox events enqueued before the retention, with no delivery left',
    count: countFinishedEvents,
    deleteBatch: (prisma, days) => deleteFinishedEvents(prisma, days, batchSize),
  },
];

async function deleteAll(prisma: PrismaClient, kind: Kind, days: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await kind.deleteBatch(prisma, days);
    total += deleted;
    if (deleted < batchSize) return total;
  }
}

/** --retention-days, else WEBHOOK_RETENTION_DAYS, else 30. */
function retentionDays(given: unknown, env: Record<string, string | undefined>): { days: number; from: string } {
  const parse = (value: string) => (/^\d+$/.test(value) ? Number(value) : Number.NaN);
  const valid = (days: number) => days >= 1 && days <= maxRetentionDays;
  if (typeof given === 'string') {
    const days = parse(given.trim());
    if (!valid(days))
      throw usageError(`--retention-days must be an integer from 1 to ${maxRetentionDays} (got "${given}")`);
    return { days, from: '--retention-days' };
  }
  const setting = env.WEBHOOK_RETENTION_DAYS?.trim();
  if (!setting) return { days: defaultRetentionDays, from: 'the default' };
  const days = parse(setting);
  if (!valid(days)) {
    throw new ConfigError(
      'WEBHOOK_RETENTION_DAYS',
      `must be an integer from 1 to ${maxRetentionDays} (got "${setting}")`,
    );
  }
  return { days, from: 'WEBHOOK_RETENTION_DAYS' };
}

export const janitorCommand: Command = {
  path: ['janitor'],
  summary: 'Delete what has expired: revoked token ids, old webhook deliveries and events',
  description: [
    `A one-shot job (run it from cron, e.g. daily) that deletes, in batches of ${batchSize} rows per
statement, so no table is locked for long:
  revoked-tokens      revoked access-token ids past their expires_at (the token has expired anyway)
  webhook-deliveries  deliveries that succeeded, or failed for good, longer ago than the retention
                      (a failed one stays replayable in the console for the whole retention)
  outbox-events       consent events enqueued longer ago than the retention with no delivery left
                      (deliveries reference their event, so it goes after them)
Pending deliveries and events not yet enqueued are never touched. Sessions, sign-in throttles and
the authorization server's grants and codes live in Redis, each with its time to live, and Redis
expires them itself: nothing of theirs is in PostgreSQL. Prints a count per kind and exits 0.
Needs DATABASE_URL; exits 69 when PostgreSQL does not answer (each statement is bounded by
DATABASE_TIMEOUT_MS, default 3000 ms): the batches deleted before stay deleted, and the next run
carries on.`,
  ],
  args: [],
  options: [
    stringOption(
      'retention-days',
      '<N>',
      `Days to keep finished deliveries and events (1 to ${maxRetentionDays}); default WEBHOOK_RETENTION_DAYS, else ${defaultRetentionDays}`,
    ),
    { name: 'dry-run', type: 'boolean', description: 'Only count what would be deleted' },
  ],
  async run({ options, env, io }) {
    const { days, from } = retentionDays(options['retention-days'], env);
    const dryRun = options['dry-run'] === true;
    const config = adminConfig(env);
    await withDatabase(config, async (prisma) => {
      io.out(`janitor: retention ${days} days (${from})${dryRun ? '; dry run, nothing is deleted' : ''}\n`);
      for (const kind of kinds) {
        const n = dryRun ? await kind.count(prisma, days) : await deleteAll(prisma, kind, days);
        io.out(`${kind.name}: ${n} ${dryRun ? 'to delete' : 'deleted'} (${kind.what})\n`);
      }
    });
    io.out('sessions: none in PostgreSQL (they live in Redis with a time to live; Redis expires them itself)\n');
  },
};
