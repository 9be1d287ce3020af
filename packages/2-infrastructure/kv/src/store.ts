/** A value to store under a key for a time. */
export interface Entry {
  key: string;
  value: string;
  ttlSeconds: number;
}

/** A value stored under a key and filed in a set (putFiled), the set kept at least as long. */
export interface FiledEntry {
  key: string;
  value: string;
  setKey: string;
}

/** Entries appended to one capped stream (appendToStreams). */
export interface StreamAppend {
  key: string;
  /** Each becomes one entry, in this order, with an id the store gives (its time, then a sequence). */
  values: string[];
  /** The stream then keeps at most this many entries, the newest. */
  maxLength: number;
  /** Entries whose ids are older than this time (ms since the epoch) are dropped. */
  minTime: number;
  /** The key lives this long after the write. */
  ttlSeconds: number;
  /**
   * Streams (sharing this key's hash tag) whose ids these entries' ids follow: past the last id any
   * of them or this stream was given. Streams that name each other so take their ids from one
   * sequence, in the order of the writes, and never share one (each stream's own would restart at
   * 0 in every millisecond).
   */
  follows?: string[];
}

/** An entry of a stream: its id ("<ms>-<sequence>", ascending in the stream) and its value. */
export interface StreamEntry {
  id: string;
  value: string;
}

/** Which entries of a stream a read gives. */
export interface StreamRead {
  /** older: newest first, down from `from`; newer: oldest first, up from `from`. */
  direction: 'older' | 'newer';
  /** Where to start: an entry id, that entry itself included or not; absent: the stream's newest (older) or oldest (newer) end. */
  from?: { id: string; inclusive: boolean };
  /** No entry whose id is older than this time (ms since the epoch). */
  minTime?: number;
  count: number;
}

/** What takeOnce found: the value it took, a value that did not match (left as it was), or nothing. */
export type Taken = { outcome: 'taken'; value: string } | { outcome: 'kept' } | { outcome: 'none' };

export interface WriteOptions {
  /**
   * A write that uses something up or that a failover must not lose (a code or refresh token used,
   * an app's version bump): with REDIS_WAIT_REPLICAS set, it counts only once that many replicas
   * have it; the call fails otherwise. A durable claim (putIfAbsent) that fails for any reason is
   * never left in place: see swap. Its value must be unique to the call: an undo takes back only
   * the value it wrote.
   */
  durable?: boolean;
}

/**
 * The few key-value operations the platform needs, over Redis or (one process only) memory.
 * Values are strings; every key may carry a time to live in seconds. A key's hash tag ({…}) keeps
 * it in one Cluster slot with the others of that tag.
 */
export interface KeyValueStore {
  put(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Stores the value only if the key does not exist; true when this call stored it. Atomic. */
  putIfAbsent(key: string, value: string, ttlSeconds?: number, options?: WriteOptions): Promise<boolean>;
  /**
   * Files the key in a set (keeping the set at least as long as the value), then stores the value:
   * one atomic step off Cluster or when both share a slot, otherwise the set first, so a value is
   * never stored unfiled.
   */
  putFiled(key: string, value: string, ttlSeconds: number | undefined, setKey: string): Promise<void>;
  getMany(keys: string[]): Promise<(string | null)[]>;
  /**
   * A compare-and-swap that also claims: when the value at key begins with `change.from` and
   * claim.key is absent, stores `change.to` at key and the claim in one atomic step and answers
   * true; otherwise writes nothing and answers false. The claim's key shares the key's hash tag.
   * A swap that fails (rejects) leaves the value and the claim as they were, whatever the failure:
   * one that arrives too late is refused by Redis, and one that ran is taken back (retried in the
   * background while Redis cannot be reached). With `durable` it also fails when the replicas do
   * not acknowledge it. The `to` value must be unique to the call. `change.alongside`, an entry of
   * the key's hash tag, is written and filed in the same step when the swap is made, for as long as
   * `to`; an undo does not take it back.
   */
  swap(
    key: string,
    change: { from: string; to: string; ttlSeconds: number; alongside?: FiledEntry },
    claim: Entry,
    options?: WriteOptions,
  ): Promise<boolean>;
  /**
   * Takes the value at key once, in one atomic step: when it is a JSON object whose `match.field`
   * is `match.equals` and claim.key is absent, stores the claim, deletes the key and answers the
   * value. A value that does not match is left as it is (`kept`); no value, or one already claimed,
   * is `none`. Of concurrent takes exactly one gets the value. The claim's key shares the key's
   * hash tag.
   */
  takeOnce(key: string, match: { field: string; equals: string }, claim: Entry): Promise<Taken>;
  /** Adds one to the integer at key (0 when absent) and returns it. Atomic. */
  increment(key: string, options?: WriteOptions): Promise<number>;
  /**
   * Adds each count to its integer and keeps each key ttlSeconds. A failure may have added some:
   * its cause, when it is CountersNotAdded, names those not added.
   */
  addToCounters(counts: Map<string, number>, ttlSeconds: number): Promise<void>;
  delete(keys: string[]): Promise<void>;
  /**
   * Appends to capped streams, each trimmed to its bounds and kept for its time: one round trip per
   * Cluster slot (one in all off Cluster). Not atomic across keys: a failure may have written some.
   */
  appendToStreams(appends: StreamAppend[]): Promise<void>;
  /** Up to `count` entries of a stream, in the read's direction; none when the key does not exist. */
  readStream(key: string, read: StreamRead): Promise<StreamEntry[]>;
  members(key: string): Promise<string[]>;
  /** One round trip to the store (readiness); rejects like any command when it does not answer. */
  ping(): Promise<void>;
  /** Resolves once the store can take commands, or after timeoutMs (requests then fail closed). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}
