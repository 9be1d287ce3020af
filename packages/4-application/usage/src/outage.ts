// An outage of the writes that bookkeeping kept off a hot path makes (the usage counts and last
// uses here, the request log of @devplat/request-log): told once when writes start failing or
// entries start being dropped, and once when they work again, never once a flush. What a failed
// write held is the writer's to say: kept for the next flush, or dropped with it.
import type { UsageLog } from './usage.ts';

/** What an outage's lines say, in the writer's words. */
export interface OutageWords {
  /** Warned the first time entries are dropped for want of room (with the bound, max_pending). */
  dropping: string;
  /** Warned the first time a write fails (with the error and what the write held). */
  failing: string;
  /** Told when writes work again after failing (with how many entries were dropped). */
  recovered: string;
  /** Told when entries are kept again after drops alone; `recovered` when not given. */
  resumed?: string;
}

/** What a failed write held: kept for the next flush (pending), or lost with it (dropped). */
export type FailedWrite = { pending: number } | { dropped: number };

export interface WriteOutage {
  /** `n` entries found no room and were dropped. */
  dropped(n: number): void;
  failed(error: unknown, held: FailedWrite): void;
  succeeded(): void;
}

export function writeOutage(log: UsageLog | undefined, bound: number, words: OutageWords): WriteOutage {
  let down = false;
  let dropped = 0;
  let droppedTold = false;
  return {
    dropped(n) {
      dropped += n;
      if (droppedTold) return;
      droppedTold = true;
      log?.warn({ max_pending: bound }, words.dropping);
    },
    failed(error, held) {
      if ('dropped' in held) dropped += held.dropped;
      if (down) return;
      down = true;
      log?.warn({ error: error instanceof Error ? error.message : String(error), ...held }, words.failing);
    },
    succeeded() {
      if (!down && dropped === 0) return;
      log?.info({ dropped }, down ? words.recovered : (words.resumed ?? words.recovered));
      down = false;
      dropped = 0;
      droppedTold = false;
    },
  };
}
