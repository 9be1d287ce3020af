export * from './stores.ts';
