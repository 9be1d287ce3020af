export { memoryStore } from './memory.ts';
export { redisStore } from './redis.ts';
export type { KeyValueStore } from './store.ts';
