// What operators see of an app's use: how many access tokens it got in the last 24 hours (hourly
// counters in the shared store) and when each of its secrets last authenticated a call
// (client_secrets.last_used_at). Both are bookkeeping on the token path, so nothing there waits
// for them: the token endpoint only adds to maps in this process (count, secretUsed), and
// flushUsageEvery writes the sums off the path, the counts every few seconds in one MULTI (one a
// slot in Cluster mode), the last uses about once a minute in one statement. A write that fails keeps what it had for the
// next one (at least once: a reply lost after Redis applied it counts those tokens twice), and
// what is pending is bounded, so an outage costs counts, never memory.
import type { PrismaClient } from '@devplat/db';
import { recordSecretsLastUsed } from '@devplat/domain/apps';
import { CountersNotAdded, hashTag, type KeyValueStore } from '@devplat/kv';
import { writeOutage } from './outage.ts';

const hourMs = 3_600_000;
/** Hours summed by lastDay: the current one and the 23 before it. */
const hoursInADay = 24;
/** Each hourly key outlives the last read that sums it (24 h after its hour began), with room to spare. */
const counterTtlSeconds = 26 * 3600;
/** Apps (per hour) or secrets waiting for a flush before new ones are dropped. */
export const maxPending = 10_000;

/**
 * The counter of the app's tokens in the hour that holds `ms`: usage:tokens:<appId>:<yyyymmddhh UTC>,
 * the app's id a hash tag, so that the day's 24 counters are read from one Cluster slot.
 */
export function tokenCounterKey(appId: string, ms: number): string {
  return `usage:tokens:${hashTag(appId)}:${hourLabel(ms)}`;
}

function hourLabel(ms: number): string {
  const iso = new Date(ms).toISOString(); // 2026-11-25T20:41:07.123Z
  return iso.slice(0, 4) + iso.slice(5, 7) + iso.slice(8, 10) + iso.slice(11, 13);
}

/** Where failures and dropped counts are told: a pino logger fits. Never a secret: ids and counts only. */
export interface UsageLog {
  warn(details: Record<string, unknown>, message: string): void;
  info(details: Record<string, unknown>, message: string): void;
}

export interface TokenUsageOptions {
  /** Where the secrets' last uses are written; without it, secretUsed notes nothing. */
  prisma?: PrismaClient;
  log?: UsageLog;
  /** The clock (tests). */
  now?: () => number;
  /** The bound on what waits for a flush (tests). */
  maxPending?: number;
}

export interface TokenUsage {
  /** One access token was issued to the app (its id, not its client id). Adds to a map: no I/O. */
  count(appId: string): void;
  /** The secret (its id) authenticated a call just now. Adds to a map: no I/O. */
  secretUsed(secretId: string): void;
  /** Adds the pending token counts to the hourly counters; on failure they stay pending. */
  flushCounts(): Promise<void>;
  /** Writes the pending last uses to PostgreSQL; on failure they stay pending. */
  flushLastUsed(): Promise<void>;
  /** Tokens the app got in the current UTC hour and the 23 before it, as flushed so far (one MGET). */
  lastDay(appId: string): Promise<number>;
}

export function tokenUsage(store: KeyValueStore, options: TokenUsageOptions = {}): TokenUsage {
  const { prisma, log, now = Date.now, maxPending: bound = maxPending } = options;
  // Pending counts by the hour they fell in (its start, in ms), then by app id. Keyed by the app id
  // string itself, not a key built per token: the same string each time (the app directory's), so
  // count() costs a clock read and two map lookups.
  let counts = new Map<number, Map<string, number>>();
  let pendingCounts = 0;
  let uses = new Map<string, number>();
  const counters = bookkeepingOutage(log, 'the token counters (Redis)', bound);
  const lastUses = bookkeepingOutage(log, "the secrets' last use (PostgreSQL)", bound);
  let hourEnds = 0;
  let thisHour = new Map<string, number>();
  const addCount = (hour: Map<string, number>, appId: string, n: number) => {
    const pending = hour.get(appId);
    if (pending !== undefined) hour.set(appId, pending + n);
    else if (pendingCounts < bound) {
      hour.set(appId, n);
      pendingCounts += 1;
    } else counters.dropped(n);
  };
  const hourOf = (hourStart: number) => {
    let hour = counts.get(hourStart);
    if (!hour) {
      hour = new Map();
      counts.set(hourStart, hour);
    }
    return hour;
  };
  const addUse = (secretId: string, at: number) => {
    const pending = uses.get(secretId);
    if (pending !== undefined) uses.set(secretId, Math.max(pending, at));
    else if (uses.size < bound) uses.set(secretId, at);
    else lastUses.dropped(1);
  };

  return {
    count(appId) {
      const at = now();
      if (at >= hourEnds) {
        const hourStart = Math.floor(at / hourMs) * hourMs;
        hourEnds = hourStart + hourMs;
        thisHour = hourOf(hourStart);
      }
      addCount(thisHour, appId, 1);
    },
    secretUsed: (secretId) => {
      if (prisma) addUse(secretId, now());
    },
    async flushCounts() {
      if (pendingCounts === 0) return;
      const batch = counts;
      counts = new Map();
      pendingCounts = 0;
      hourEnds = 0; // the next count finds its hour in the new map
      const byKey = new Map<string, number>();
      const origins = new Map<string, { hourStart: number; appId: string }>();
      for (const [hourStart, apps] of batch) {
        for (const [appId, n] of apps) {
          const key = tokenCounterKey(appId, hourStart);
          byKey.set(key, n);
          origins.set(key, { hourStart, appId });
        }
      }
      try {
        await store.addToCounters(byKey, counterTtlSeconds);
        counters.succeeded();
      } catch (error) {
        // Only what was not added waits for the next flush (in Cluster mode each slot adds on its own).
        const cause = (error as { cause?: unknown }).cause;
        const notAdded = cause instanceof CountersNotAdded ? cause.counts : byKey;
        for (const [key, n] of notAdded) {
          const origin = origins.get(key);
          if (origin) addCount(hourOf(origin.hourStart), origin.appId, n);
        }
        counters.failed(error, { pending: pendingCounts });
      }
    },
    async flushLastUsed() {
      if (!prisma || uses.size === 0) return;
      const batch = uses;
      uses = new Map();
      try {
        await recordSecretsLastUsed(
          prisma,
          [...batch].map(([secretId, at]) => ({ secretId, at: new Date(at) })),
        );
        lastUses.succeeded();
      } catch (error) {
        for (const [secretId, at] of batch) addUse(secretId, at);
        lastUses.failed(error, { pending: uses.size });
      }
    },
    async lastDay(appId) {
      const hour = Math.floor(now() / hourMs) * hourMs;
      const keys = Array.from({ length: hoursInADay }, (_, back) => tokenCounterKey(appId, hour - back * hourMs));
      const values = await store.getMany(keys);
      return values.reduce((sum, value) => sum + (value === null ? 0 : Number(value)), 0);
    },
  };
}

/** The outage of one of the bookkeeping's writes, told in its words: what failed waits for the next flush. */
const bookkeepingOutage = (log: UsageLog | undefined, what: string, bound: number) =>
  writeOutage(log, bound, {
    dropping: `usage bookkeeping: too much waiting for ${what}; dropping new entries`,
    failing: `usage bookkeeping: writing ${what} failed; kept for the next flush`,
    recovered: `usage bookkeeping: writing ${what} works again`,
  });

export interface UsageIntervals {
  /** How often the token counts are flushed (USAGE_COUNT_FLUSH_MS). */
  countFlushMs: number;
  /** How often the last uses are flushed (USAGE_LAST_USED_FLUSH_MS). */
  lastUsedFlushMs: number;
}

/**
 * Flushes on timers that never keep the process alive, one flush of a kind at a time (a slow one
 * makes the next tick skip, not queue). stop() ends the timers and flushes both once more: the
 * drain calls it before it closes the stores.
 */
export function flushUsageEvery(usage: TokenUsage, intervals: UsageIntervals): { stop(): Promise<void> } {
  const counts = oneAtATime(() => usage.flushCounts());
  const lastUses = oneAtATime(() => usage.flushLastUsed());
  const timers = [
    setInterval(() => void counts.tick(), intervals.countFlushMs),
    setInterval(() => void lastUses.tick(), intervals.lastUsedFlushMs),
  ];
  for (const timer of timers) timer.unref();
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all([counts.last(), lastUses.last()]);
    },
  };
}

function oneAtATime(flush: () => Promise<void>) {
  let running: Promise<void> | null = null;
  const run = () => {
    running = flush().finally(() => {
      running = null;
    });
    return running;
  };
  return {
    tick: () => running ?? run(),
    /** After the flush under way, if any, one more. */
    last: async () => {
      if (running) await running;
      await run();
    },
  };
}
