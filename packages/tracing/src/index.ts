export {
  type Attributes,
  type AttributeValue,
  allowedAttributeKeys,
  looksSecret,
  sanitize,
} from './attributes.ts';
export { noopTracing } from './noop.ts';
export type { Environment } from './settings.ts';
export { startTracing, type TracingOptions } from './tracing.ts';
export type { ServerTarget, SpanHandle, SqlFunction, Tracing } from './types.ts';
