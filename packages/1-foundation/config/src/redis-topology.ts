/** A Redis server's or sentinel's address. */
export interface RedisAddress {
  host: string;
  port: number;
}

/**
 * How Redis is reached: the one server of REDIS_URL; a primary that Sentinel watches and replaces
 * (REDIS_SENTINELS, REDIS_SENTINEL_MASTER); or a Cluster, from any of its nodes (REDIS_CLUSTER_NODES).
 */
export type RedisTopology =
  | { mode: 'single' }
  | { mode: 'sentinel'; sentinels: RedisAddress[]; masterName: string }
  | { mode: 'cluster'; nodes: RedisAddress[] };
