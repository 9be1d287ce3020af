/**
 * The few key-value operations the platform needs, over Redis or (one process only) memory.
 * Values are strings; every key may carry a time to live in seconds.
 */
export interface KeyValueStore {
  put(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** Stores the value only if the key does not exist; true when this call stored it. Atomic. */
  putIfAbsent(key: string, value: string, ttlSeconds?: number): Promise<boolean>;
  getMany(keys: string[]): Promise<(string | null)[]>;
  /** Adds one to the integer at key (0 when absent) and returns it. Atomic. */
  increment(key: string): Promise<number>;
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
