export * from './cpu-limits.ts';
export * from './database.ts';
export * from './gateway.ts';
export * from './ports.ts';
export * from './processes.ts';
export * from './replica.ts';
export * from './topology.ts';
