export * from './catalogue.ts';
export * from './console-api.ts';
export * from './openapi.ts';
export * from './urls.ts';
