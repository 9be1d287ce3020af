export * from './catalogue.ts';
export * from './openapi.ts';
