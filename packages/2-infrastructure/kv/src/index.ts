export { memoryStore } from './memory.ts';
export {
  CountersNotAdded,
  type RedisClient,
  type RedisStoreOptions,
  redisClientOf,
  redisConnectionsOf,
  redisStore,
} from './redis.ts';
export type {
  Entry,
  FiledEntry,
  KeyValueStore,
  StreamAppend,
  StreamEntry,
  StreamRead,
  Taken,
  WriteOptions,
} from './store.ts';
export { hashTag, type RedisAddress, type RedisTopology, singleRedis } from './topology.ts';
