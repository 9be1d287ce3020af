import type { RedisAddress, RedisTopology } from '@devplat/config';

export type { RedisAddress, RedisTopology };

export const singleRedis: RedisTopology = { mode: 'single' };

/** A key part that must share a Cluster slot with every other key carrying the same tag. */
export const hashTag = (part: string) => `{${part}}`;
