export * from './config.ts';
export * from './secrets.ts';
