export * from './service-process.ts';
export * from './stores.ts';
