export {
  type Attributes,
  type AttributeValue,
  allowedAttributeKeys,
  looksSecret,
  sanitize,
} from './attributes.ts';
export { noopTracing } from './noop.ts';
export { startTracing } from './start.ts';
export type { Environment } from './switch.ts';
export type { TracingOptions } from './tracing.ts';
export type { ServerTarget, SpanHandle, SqlFunction, Tracing } from './types.ts';
