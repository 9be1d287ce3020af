// Each app's request log: its calls to the token and revocation endpoints (auth) and to /cities and
// /me (api), for its developer to read in the console and tail with `devplat logs tail`. An entry is
// the call's time, operation, status, error code, request id, latency, grant type and, for a user
// token, its pairwise subject: never a token, a secret, a code or an internal id.
//
// Writing is bookkeeping on the hot paths, so it is kept off them as usage.ts keeps the token
// counts: record() pushes to an array in this process (no I/O, no await, nothing serialized), and
// flushRequestLogEvery writes what is pending every REQUEST_LOG_FLUSH_MS, a script per stream and a
// round trip per Cluster slot. A write that fails drops its entries, counted and told once; what
// may wait is bounded, so an outage costs entries, never memory.
//
// The store is Redis, shared by every replica: one capped stream per app, and apart from it one per
// client id for the failed client authentications that claimed it (a stranger who knows a client id
// can fill only that one, never push the app's own calls out). Only a client id of a usable app is
// recorded at all, so unknown ones cost nothing. Both streams carry the client id as their hash tag,
// one Cluster slot, and each write's ids follow the last ids of both (StreamAppend.follows): the two
// streams' ids are one sequence, in the order of the writes, so they order the two as one log. Each
// stream's own ids alone would not: two streams given ids in the same millisecond each number them
// from 0, and a call written later could sort before one written earlier, or behind a tail's place.
import { hashTag, type KeyValueStore, type StreamEntry } from '@devplat/kv';
import { type UsageLog, writeOutage } from '@devplat/usage';

export const requestOperations = ['token', 'revoke', 'cities', 'me'] as const;
export type RequestOperation = (typeof requestOperations)[number];

/** One answered call, as the service that answered it notes it. */
export interface RequestRecord {
  /** The app's client id: the one the call authenticated as, or the one a failed client authentication claimed. */
  clientId: string;
  /** False for a call whose client authentication failed: it goes to the claimed client id's own stream. */
  authenticated: boolean;
  operation: RequestOperation;
  status: number;
  /** The OAuth error or Problem code answered. */
  error: string | undefined;
  requestId: string;
  /** From the request's arrival to its answer. */
  seconds: number;
  /** The token request's grant type, when the provider knows it. */
  grantType: string | undefined;
  /** A user token's pairwise subject (ps_...), nothing else. */
  subject: string | undefined;
}

/** An entry as the log gives it back. */
export interface RequestLogEntry {
  /** Where it stands in the app's log (see Position): a cursor for older entries, a place to tail from. */
  id: string;
  /** When the call was answered (ms since the epoch). */
  at: number;
  operation: RequestOperation;
  status: number;
  error: string | null;
  requestId: string;
  latencyMs: number;
  grantType: string | null;
  subject: string | null;
  /** False for a failed client authentication that claimed this app's client id. */
  clientAuthenticated: boolean;
}

/** What the log keeps (REQUEST_LOG_*: packages/1-foundation/config). */
export interface RequestLogBounds {
  maxEntries: number;
  maxFailedAuthentications: number;
  retentionHours: number;
  /**
   * How often the log is written (REQUEST_LOG_FLUSH_MS). With it, a stream takes at most its bound
   * a second, spread over the writes (writeBudget); without it, its bound a write.
   */
  flushMs?: number;
}

/** A write may always send this many calls of a stream (its bound, if smaller). */
export const minimumWriteBudget = 100;

/**
 * How many of a stream's pending calls one write sends: all of them while the app calls less often
 * than its log holds in a second; beyond that its bound a second, spread over the writes, and never
 * fewer than minimumWriteBudget a write (a stream holds no more than its bound, and a flood would
 * otherwise cost Redis a write per call for entries trimmed a moment later).
 */
export function writeBudget(maxLength: number, flushMs: number | undefined): number {
  if (flushMs === undefined) return maxLength;
  return Math.min(maxLength, Math.max(minimumWriteBudget, Math.ceil((maxLength * flushMs) / 1000)));
}

/**
 * The calls (indexes into `batch`, oldest first) a write sends when there are more than `budget`:
 * the newest refusals first (status 400 and up: what a developer looks for), then the newest of the
 * rest; oldest first again.
 */
function chosen(indexes: number[], batch: readonly RequestRecord[], budget: number): number[] {
  if (indexes.length <= budget) return indexes;
  const refused = indexes.filter((index) => (batch[index] as RequestRecord).status >= 400);
  const kept = new Set(refused.slice(-budget));
  for (let at = indexes.length - 1; at >= 0 && kept.size < budget; at--) kept.add(indexes[at] as number);
  return indexes.filter((index) => kept.has(index));
}

// The app's own calls ('a') and the failed client authentications claiming its client id ('u').
type Tag = 'a' | 'u';
const keyOf = (clientId: string, tag: Tag) =>
  tag === 'a' ? `request-log:${hashTag(clientId)}` : `request-log:${hashTag(clientId)}:unauthenticated`;

/**
 * A place in an app's log: a stream entry's id and its stream. Entries are ordered by id, then the
 * app's stream before the other: a total order over both, so a page ends and the next begins at one.
 * (Written with `follows`, no two entries share an id: the tag orders older writes' that do.) As
 * text, "<ms>-<sequence>-<a|u>".
 */
export interface Position {
  id: string;
  tag: Tag;
}

const positionPattern = /^([1-9][0-9]{0,14})-([0-9]{1,15})-([au])$/;

/** The position a text names, or null when it names none (a made-up cursor). */
export function parsePosition(text: string): Position | null {
  const match = positionPattern.exec(text);
  return match ? { id: `${match[1]}-${match[2]}`, tag: match[3] as Tag } : null;
}

export const positionText = ({ id, tag }: Position) => `${id}-${tag}`;

const idParts = (id: string) => id.split('-').map(Number) as [number, number];
/** Negative when a comes first in the log (older), positive when b does. */
function compare(a: Position, b: Position): number {
  const [am, as] = idParts(a.id);
  const [bm, bs] = idParts(b.id);
  return am - bm || as - bs || (a.tag === b.tag ? 0 : a.tag === 'a' ? -1 : 1);
}

// The stored value: a small JSON array, written off the path. Checked again here, so that nothing
// but a code, a pairwise subject and a request id of the expected shapes is ever stored.
const codeShape = /^[A-Za-z_]{1,40}$/;
const pairwiseShape = /^ps_[A-Za-z0-9_-]{32}$/;
const requestIdShape = /^req_[0-9a-f]{32}$/;
const grantTypes = new Set(['client_credentials', 'authorization_code', 'refresh_token']);

function encode(record: RequestRecord, at: number): string {
  const { operation, status, error, requestId, seconds, grantType, subject } = record;
  return JSON.stringify([
    at,
    operation,
    status,
    error !== undefined && codeShape.test(error) ? error : null,
    requestIdShape.test(requestId) ? requestId : '',
    Math.round(seconds * 10_000) / 10,
    grantType !== undefined && grantTypes.has(grantType) ? grantType : null,
    subject !== undefined && pairwiseShape.test(subject) ? subject : null,
  ]);
}

const operations = new Set<string>(requestOperations);

function decode(entry: StreamEntry, tag: Tag): RequestLogEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(entry.value);
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length < 8) return null;
  const [at, operation, status, error, requestId, latencyMs, grantType, subject] = value as unknown[];
  if (typeof at !== 'number' || typeof operation !== 'string' || !operations.has(operation)) return null;
  const text = (item: unknown) => (typeof item === 'string' ? item : null);
  return {
    id: positionText({ id: entry.id, tag }),
    at,
    operation: operation as RequestOperation,
    status: typeof status === 'number' ? status : 0,
    error: text(error),
    requestId: text(requestId) ?? '',
    latencyMs: typeof latencyMs === 'number' ? latencyMs : 0,
    grantType: text(grantType),
    subject: text(subject),
    clientAuthenticated: tag === 'a',
  };
}

/** The calls on the path wait in this process for at most this many (about 150 bytes each). */
export const maxPendingRecords = 10_000;

export interface RequestLog {
  /** Notes one answered call: a push to an array, nothing more. */
  record(record: RequestRecord): void;
  /** Writes what is pending; a failure drops it (counted and told once). */
  flush(): Promise<void>;
}

export interface RequestLogOptions {
  /** Where failures and drops are told (ids and counts only). */
  log?: UsageLog;
  /** The clock (tests). */
  now?: () => number;
  /** The bound on what waits for a flush (tests). */
  maxPending?: number;
}

export function requestLog(
  store: KeyValueStore,
  bounds: RequestLogBounds,
  options: RequestLogOptions = {},
): RequestLog {
  const { log, now = Date.now, maxPending = maxPendingRecords } = options;
  const retentionMs = bounds.retentionHours * 3_600_000;
  // Parallel arrays: the record as the caller made it and its time, so noting one allocates nothing.
  let records: RequestRecord[] = [];
  let times: number[] = [];
  // An app's successful calls noted since the last write, by client id. In a flood, those past what
  // a write may send are not kept at all, so the flood holds no more in memory than a write sends
  // (each kept call would outlive the young generation until the write); refusals are always kept.
  const keptPerWrite =
    bounds.flushMs === undefined
      ? Number.POSITIVE_INFINITY
      : Math.max(minimumWriteBudget, Math.ceil((bounds.maxEntries * bounds.flushMs) / 1000));
  let successes = new Map<string, number>();
  const writes = writeOutage(log, maxPending, {
    dropping: 'request log: too many calls waiting to be written; dropping new ones',
    failing: 'request log: writing to the store failed; those calls are dropped',
    recovered: 'request log: writing to the store works again',
    resumed: 'request log: calls are noted again',
  });
  return {
    record(record) {
      if (records.length >= maxPending) return writes.dropped(1);
      if (record.authenticated && record.status < 400) {
        const kept = successes.get(record.clientId) ?? 0;
        if (kept >= keptPerWrite) return;
        successes.set(record.clientId, kept + 1);
      }
      records.push(record);
      times.push(now());
    },
    async flush() {
      if (records.length === 0) return;
      const batch = records;
      const batchTimes = times;
      records = [];
      times = [];
      successes = new Map();
      // By client id, then stream; only what a stream's write budget takes is encoded and sent.
      const streams = new Map<string, { a: number[]; u: number[] }>();
      for (const [index, record] of batch.entries()) {
        let lists = streams.get(record.clientId);
        if (!lists) {
          lists = { a: [], u: [] };
          streams.set(record.clientId, lists);
        }
        (record.authenticated ? lists.a : lists.u).push(index);
      }
      const minTime = now() - retentionMs;
      const ttlSeconds = Math.ceil(retentionMs / 1000);
      const appends = [...streams].flatMap(([clientId, lists]) =>
        (['a', 'u'] as const)
          .filter((tag) => lists[tag].length > 0)
          .map((tag) => {
            const maxLength = tag === 'a' ? bounds.maxEntries : bounds.maxFailedAuthentications;
            const values = chosen(lists[tag], batch, writeBudget(maxLength, bounds.flushMs)).map((index) =>
              encode(batch[index] as RequestRecord, batchTimes[index] as number),
            );
            const follows = [keyOf(clientId, tag === 'a' ? 'u' : 'a')];
            return { key: keyOf(clientId, tag), values, maxLength, minTime, ttlSeconds, follows };
          }),
      );
      try {
        await store.appendToStreams(appends);
        writes.succeeded();
      } catch (error) {
        writes.failed(error, { dropped: batch.length });
      }
    },
  };
}

/**
 * Flushes on a timer that never keeps the process alive, one flush at a time (a slow one makes the
 * next tick skip). stop() ends the timer and flushes once more: the drain calls it before it closes
 * the store.
 */
export function flushRequestLogEvery(requests: RequestLog, flushMs: number): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const run = () => {
    running = requests.flush().finally(() => {
      running = null;
    });
    return running;
  };
  const timer = setInterval(() => void (running ?? run()), flushMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      if (running) await running;
      await run();
    },
  };
}

/** Which entries a read gives: each member a condition, all of them met. */
export interface RequestFilter {
  /** 2, 4 or 5: the status's hundreds. */
  statusClass?: number;
  operation?: RequestOperation;
  error?: string;
}

const matches = (entry: RequestLogEntry, { statusClass, operation, error }: RequestFilter) =>
  (statusClass === undefined || Math.floor(entry.status / 100) === statusClass) &&
  (operation === undefined || entry.operation === operation) &&
  (error === undefined || entry.error === error);

/** The most entries a tail's read gives (the rest come with the next one). */
const maxNewer = 500;

export interface RequestLogReader {
  /**
   * The app's entries older than `before` (none: from the newest), newest first: at most `limit`
   * that match, and whether more do.
   */
  older(
    clientId: string,
    options: { before?: Position; limit: number; filter?: RequestFilter },
  ): Promise<{ entries: RequestLogEntry[]; more: boolean }>;
  /**
   * The app's entries newer than `after` (null: every one kept), oldest first, those that match;
   * and the position read up to (the next read's `after`), which passes entries that do not match.
   */
  newer(
    clientId: string,
    after: Position | null,
    filter?: RequestFilter,
  ): Promise<{ entries: RequestLogEntry[]; position: Position | null }>;
  /** The position of the app's newest entry now, where a tail starts; null while its log is empty. */
  newest(clientId: string): Promise<Position | null>;
}

export function requestLogReader(
  store: KeyValueStore,
  bounds: Pick<RequestLogBounds, 'retentionHours'>,
  now: () => number = Date.now,
): RequestLogReader {
  const retentionMs = bounds.retentionHours * 3_600_000;
  /**
   * Both streams of an app merged in the log's order, read a chunk at a time as it is consumed, from
   * just past `start` (each stream's own bound follows from the order: see compare).
   */
  const merged = (clientId: string, direction: 'older' | 'newer', start: Position | null, chunk: number) => {
    const minTime = now() - retentionMs;
    const sources = (['a', 'u'] as const).map((tag) => {
      // Past `start` in this direction: its own stream exclusive; the other inclusive of the same
      // id when that id's entry of this stream comes after start's in the direction read.
      let from =
        start === null
          ? undefined
          : {
              id: start.id,
              inclusive: start.tag !== tag && (direction === 'older' ? tag === 'a' : tag === 'u'),
            };
      let buffer: StreamEntry[] = [];
      let exhausted = false;
      return {
        tag,
        async head(): Promise<StreamEntry | undefined> {
          if (buffer.length === 0 && !exhausted) {
            buffer = await store.readStream(keyOf(clientId, tag), { direction, from, minTime, count: chunk });
            exhausted = buffer.length < chunk;
            const last = buffer.at(-1);
            if (last) from = { id: last.id, inclusive: false };
          }
          return buffer[0];
        },
        take: () => buffer.shift(),
      };
    });
    /** The next entry in the direction read, with its position, or null when both streams are done. */
    return async (): Promise<{ position: Position; entry: RequestLogEntry | null } | null> => {
      const heads = await Promise.all(sources.map(async (source) => ({ source, head: await source.head() })));
      let next: { source: (typeof sources)[number]; position: Position } | null = null;
      for (const { source, head } of heads) {
        if (!head) continue;
        const position = { id: head.id, tag: source.tag };
        const order = next ? compare(position, next.position) : 0;
        if (!next || (direction === 'older' ? order > 0 : order < 0)) next = { source, position };
      }
      if (!next) return null;
      const taken = next.source.take() as StreamEntry;
      return { position: next.position, entry: decode(taken, next.source.tag) };
    };
  };

  return {
    async older(clientId, { before, limit, filter = {} }) {
      const next = merged(clientId, 'older', before ?? null, Math.min(Math.max(limit + 1, 100), 1_000));
      const entries: RequestLogEntry[] = [];
      for (let item = await next(); item; item = await next()) {
        if (item.entry && matches(item.entry, filter)) entries.push(item.entry);
        if (entries.length > limit) return { entries: entries.slice(0, limit), more: true };
      }
      return { entries, more: false };
    },
    async newer(clientId, after, filter = {}) {
      const next = merged(clientId, 'newer', after, 100);
      const entries: RequestLogEntry[] = [];
      let position = after;
      for (let read = 0; read < maxNewer; read++) {
        const item = await next();
        if (!item) break;
        position = item.position;
        if (item.entry && matches(item.entry, filter)) entries.push(item.entry);
      }
      return { entries, position };
    },
    async newest(clientId) {
      const newest = await Promise.all(
        (['a', 'u'] as const).map(async (tag) => {
          const [entry] = await store.readStream(keyOf(clientId, tag), { direction: 'older', count: 1 });
          return entry && { id: entry.id, tag };
        }),
      );
      const found = newest.filter((position): position is Position => Boolean(position));
      return found.reduce<Position | null>(
        (max, position) => (max && compare(max, position) > 0 ? max : position),
        null,
      );
    },
  };
}
