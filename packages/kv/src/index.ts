export { memoryStore } from './memory.ts';
export { type RedisStoreOptions, redisClientOf, redisStore } from './redis.ts';
export type { KeyValueStore } from './store.ts';
