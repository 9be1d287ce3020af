// What every service imports. The OpenAPI documents and their validator (ajv, yaml) are a separate
// entry, @devplat/contract/openapi, for the tests and tools that check answers against them.
export * from './catalogue.ts';
export * from './console-api.ts';
export * from './urls.ts';
