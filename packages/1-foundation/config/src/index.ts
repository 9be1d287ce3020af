export * from './access-tokens.ts';
export * from './config.ts';
export type * from './redis-topology.ts';
export * from './secrets.ts';
