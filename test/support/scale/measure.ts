// What a seeded platform costs to keep: PostgreSQL bytes per row of each table (heap, indexes and
// TOAST together), and Redis memory per kind of key (MEMORY USAGE of a sample of keys).
import type { Query } from '@devplat/db';
import { type KeyValueStore, redisClientOf } from '@devplat/kv';

export interface TableSize {
  table: string;
  rows: number;
  /** The rows themselves (the main fork). */
  heapBytes: number;
  indexBytes: number;
  /** pg_total_relation_size: heap, indexes, TOAST and the free-space and visibility maps. */
  totalBytes: number;
}

export const seededTables = [
  'accounts',
  'apps',
  'client_secrets',
  'sandbox_players',
  'consents',
  'audit_records',
  'outbox_events',
  'webhook_deliveries',
  'revoked_tokens',
] as const;

export async function tableSizes(query: Query): Promise<TableSize[]> {
  const sizes: TableSize[] = [];
  for (const table of seededTables) {
    const [row] = await query<Record<string, string | number>>(
      `SELECT count(*) AS n, pg_relation_size('${table}') AS heap, pg_indexes_size('${table}') AS idx,
        pg_total_relation_size('${table}') AS total FROM ${table}`,
      [],
    );
    sizes.push({
      table,
      rows: Number(row?.n),
      heapBytes: Number(row?.heap),
      indexBytes: Number(row?.idx),
      totalBytes: Number(row?.total),
    });
  }
  return sizes;
}

export async function databaseBytes(query: Query): Promise<number> {
  const [row] = await query<{ bytes: string }>('SELECT pg_database_size(current_database()) AS bytes', []);
  return Number(row?.bytes);
}

/** INFO memory's used_memory (the whole server's) and the keys of the store's logical database. */
export async function redisMemory(store: KeyValueStore): Promise<{ usedBytes: number; keys: number } | null> {
  const redis = redisClientOf(store);
  if (!redis) return null;
  const info = await redis.info('memory');
  const used = /^used_memory:(\d+)/m.exec(info)?.[1];
  return { usedBytes: Number(used), keys: await redis.dbsize() };
}

export interface KeyKind {
  /** The key without its prefix, each id, token or hash in it written *. */
  kind: string;
  /** Of the keys sampled. */
  sampled: number;
  meanBytes: number;
}

/**
 * A key's kind: the platform's ids, tokens and hashes are 16 or more of these characters, not all
 * letters unless 20 or more (a model's name, AuthorizationCode, is 17 letters; a random id may
 * happen to be letters only).
 */
export const kindOf = (key: string) =>
  key.replace(/[A-Za-z0-9_-]{16,}/g, (part) => (part.length < 20 && /^[A-Za-z]+$/.test(part) ? part : '*'));

/**
 * MEMORY USAGE of up to `sample` keys under `prefix`, grouped by kind. `unprefixed` must be a store
 * opened with no key prefix: the command names whole keys.
 */
export async function keyKinds(unprefixed: KeyValueStore, prefix: string, sample: number): Promise<KeyKind[]> {
  const redis = redisClientOf(unprefixed);
  if (!redis || !('scan' in redis)) return [];
  const kinds = new Map<string, { sampled: number; bytes: number }>();
  let cursor = '0';
  let seen = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    const usages = await Promise.all(keys.map((key) => redis.memory('USAGE', key)));
    keys.forEach((key, index) => {
      const kind = kindOf(key.slice(prefix.length));
      const entry = kinds.get(kind) ?? { sampled: 0, bytes: 0 };
      kinds.set(kind, { sampled: entry.sampled + 1, bytes: entry.bytes + Number(usages[index] ?? 0) });
    });
    seen += keys.length;
  } while (cursor !== '0' && seen < sample);
  return [...kinds]
    .map(([kind, { sampled, bytes }]) => ({ kind, sampled, meanBytes: Math.round(bytes / sampled) }))
    .toSorted((a, b) => b.sampled - a.sampled);
}
