import type { Cluster, Redis } from 'ioredis';
import type { Context, Middleware } from 'koa';
import type { Attributes, AttributeValue } from './attributes.ts';

/** A span being run: what it learns on the way. Keys and values pass the attribute sanitizer. */
export interface SpanHandle {
  set(key: string, value: AttributeValue | undefined): void;
  /** Marks the span failed (status error) with a short type, without throwing. */
  fail(type: string): void;
}

/** Where a database or Redis is, for the spans of its calls. Never a URL: it could carry a password. */
export interface ServerTarget {
  address?: string;
  port?: number;
  /** The database's name (PostgreSQL) or index (Redis). */
  namespace?: string;
}

/** A plain SQL function: a statement with positional parameters ($1, $2, ...). */
export type SqlFunction = (text: string, values: unknown[]) => Promise<unknown>;

export interface Tracing {
  /** false: every member is a pass-through that does no work per call. */
  readonly enabled: boolean;
  /**
   * Runs `handle` (the rest of a request) in a SERVER span continuing the request's `traceparent`,
   * named `METHOD route` once the route is known (the router's template, `unmatched` otherwise;
   * never the path), with the method, route, status, scheme and host; a 5xx answer or a throw marks
   * it failed. Sets ctx.state.traceId before `handle` runs, for the request's log line.
   */
  serve<T>(ctx: Context, handle: () => Promise<T>): Promise<T>;
  /** `serve` as a Koa middleware, for an app without an envelope of its own. */
  koa(): Middleware;
  /**
   * fetch with a CLIENT span and `traceparent` sent: method, host, port, scheme and status, never
   * the path, the query or a header.
   */
  readonly fetch: typeof fetch;
  /** An INTERNAL span around `fn` (a token flow step, a webhook attempt); a throw marks it failed. */
  span<T>(name: string, attributes: Attributes, fn: (span: SpanHandle) => Promise<T>): Promise<T>;
  /**
   * The SQL function with a CLIENT span per call inside a traced operation: the statement text and
   * its first keyword, never the values.
   */
  query<Q extends SqlFunction>(query: Q, target?: ServerTarget): Q;
  /**
   * A Prisma driver adapter factory (SqlDriverAdapterFactory, as PrismaPg) whose connections and
   * transactions give each statement Prisma runs a span, as `query` does.
   */
  prismaAdapter<A extends object>(factory: A, target?: ServerTarget): A;
  /** Gives each command of this ioredis client a span inside a traced operation: the command's name only. */
  redis(client: Redis | Cluster): void;
  /** The trace id of the current span, if any. */
  traceId(): string | undefined;
  /** Exports what is left and stops; within about two seconds, whatever the collector does. */
  shutdown(): Promise<void>;
}
