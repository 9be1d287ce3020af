// CLIENT spans for PostgreSQL: around a plain SQL function, and around the statements Prisma runs
// through its driver adapter. A span carries the statement text (its parameters are $1, $2, ...)
// and its first keyword; never a parameter's value. Only calls made inside a traced operation get
// one (see recordedParent).
import { SpanKind } from '@opentelemetry/api';
import {
  ATTR_DB_NAMESPACE,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_SYSTEM_NAME,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import { sanitize } from './attributes.ts';
import { type Core, recordedParent, runInSpan } from './core.ts';
import type { ServerTarget, SqlFunction } from './types.ts';

/** The statement's first keyword, upper case (SELECT, INSERT, WITH, BEGIN...). */
export function operationOf(text: string): string | undefined {
  return /^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase();
}

export function targetAttributes(target: ServerTarget | undefined) {
  return {
    [ATTR_SERVER_ADDRESS]: target?.address,
    [ATTR_SERVER_PORT]: target?.port,
    [ATTR_DB_NAMESPACE]: target?.namespace,
  };
}

/** Runs one statement in a span (when inside a traced operation). */
function statement<T>(core: Core, text: string, target: ServerTarget | undefined, run: () => Promise<T>): Promise<T> {
  const parent = recordedParent(core);
  if (parent === undefined) return run();
  const operation = operationOf(text);
  const span = core.tracer.startSpan(
    operation ?? DB_SYSTEM_NAME_VALUE_POSTGRESQL,
    {
      kind: SpanKind.CLIENT,
      attributes: sanitize({
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_OPERATION_NAME]: operation,
        [ATTR_DB_QUERY_TEXT]: text,
        ...targetAttributes(target),
      }),
    },
    parent,
  );
  return runInSpan(core, span, parent, run);
}

export function tracedQuery<Q extends SqlFunction>(core: Core, query: Q, target?: ServerTarget): Q {
  const traced = (text: string, values: unknown[]) => statement(core, text, target, () => query(text, values));
  // Whatever the function carries besides (as the database's timeoutMs) stays on it.
  return Object.assign(traced, query) as unknown as Q;
}

// The driver adapter's shapes (@prisma/driver-adapter-utils), as far as they are used here.
interface SqlQuery {
  sql: string;
}
type Method = (...args: unknown[]) => unknown;

const statementMethods = new Set<PropertyKey>(['queryRaw', 'executeRaw']);
// Methods that resolve to an adapter or a transaction, whose statements are traced in turn.
const openingMethods = new Set<PropertyKey>(['connect', 'connectToShadowDb', 'startTransaction']);

/**
 * The factory (or adapter, or transaction) with queryRaw and executeRaw traced, and the adapters
 * and transactions it opens traced in turn. Every other member is the target's own.
 */
export function tracedAdapter<A extends object>(core: Core, target: A, server?: ServerTarget): A {
  return new Proxy(target, {
    get(object, property) {
      const value = Reflect.get(object, property, object) as unknown;
      if (typeof value !== 'function') return value;
      const method = value as Method;
      if (statementMethods.has(property)) {
        return (query: SqlQuery, ...rest: unknown[]) =>
          statement(core, query.sql, server, () => method.call(object, query, ...rest) as Promise<unknown>);
      }
      if (openingMethods.has(property)) {
        return async (...args: unknown[]) => {
          const opened = await (method.apply(object, args) as Promise<unknown>);
          return typeof opened === 'object' && opened !== null ? tracedAdapter(core, opened, server) : opened;
        };
      }
      return method.bind(object);
    },
  });
}
