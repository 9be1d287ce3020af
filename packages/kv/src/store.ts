export interface WriteOptions {
  /**
   * A write a failover must not lose (a code or refresh token used, an app's version bump): with
   * REDIS_WAIT_REPLICAS set, it counts only once that many replicas have it; the call fails otherwise.
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
  getMany(keys: string[]): Promise<(string | null)[]>;
  /** Adds one to the integer at key (0 when absent) and returns it. Atomic. */
  increment(key: string, options?: WriteOptions): Promise<number>;
  /**
   * Adds each count to its integer and keeps each key ttlSeconds. A failure may have added some:
   * its cause, when it is CountersNotAdded, names those not added.
   */
  addToCounters(counts: Map<string, number>, ttlSeconds: number): Promise<void>;
  delete(keys: string[]): Promise<void>;
  /** Adds a member to a set, keeping the set at least ttlSeconds longer. */
  addToSet(key: string, member: string, ttlSeconds?: number): Promise<void>;
  members(key: string): Promise<string[]>;
  /** One round trip to the store (readiness); rejects like any command when it does not answer. */
  ping(): Promise<void>;
  /** Resolves once the store can take commands, or after timeoutMs (requests then fail closed). */
  ready(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}
