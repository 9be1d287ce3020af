// A developer's request log of one of their apps (issue 29): its calls to the token and revocation
// endpoints, /cities and /me, with each one's status, error code, request id and latency, newest
// first a page at a time, or as they come (the stream `devplat logs tail` reads). The failed client
// authentications that claimed the app's client id are in it too, marked as such. Another
// developer's app answers as one that does not exist, as every per-app read does. What is kept, and
// for how long, is REQUEST_LOG_* (request-log.ts). The query's rules are read here, refused as the
// rooms refuse a developer's input (INVALID_INPUT); the app is found through the apps room.
import { problemCodes, type RequestLogEntryView } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { type AppWithSecrets, appOfDeveloper } from '@devplat/domain/apps';
import { pageLimits } from '@devplat/domain/audit';
import { queryParameters, refuseInput as refuse } from '@devplat/domain/input';
import type { KeyValueStore } from '@devplat/kv';
import {
  type Position,
  parsePosition,
  positionText,
  type RequestFilter,
  type RequestLogBounds,
  type RequestLogEntry,
  type RequestOperation,
  requestLogReader,
  requestOperations,
} from './request-log.ts';

const view = (entry: RequestLogEntry): RequestLogEntryView => ({
  id: entry.id,
  at: new Date(entry.at).toISOString(),
  operation: entry.operation,
  status: entry.status,
  error: entry.error,
  request_id: entry.requestId,
  latency_ms: entry.latencyMs,
  grant_type: entry.grantType,
  subject: entry.subject,
  client_authenticated: entry.clientAuthenticated,
});

export const statusClasses = ['2xx', '4xx', '5xx'] as const;

/** The OAuth errors the token and revocation endpoints answer (the contract's). */
const oauthErrors = [
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'invalid_scope',
  'unsupported_grant_type',
] as const;

/** The filters as given (empty ones left out): what a page's form shows again. */
export interface RequestLogFilterValues {
  status?: string;
  operation?: string;
  error?: string;
}

/** A page of an app's log, with the app it is of and the filters it was read with. */
export interface RequestLogPage {
  app: AppWithSecrets;
  entries: RequestLogEntryView[];
  /** Gives the older entries; null when there are none. */
  nextCursor: string | null;
  filters: RequestLogFilterValues;
}

/** An app's log as it grows: each next() gives what came since the last (the tail's poll). */
export interface RequestLogFeed {
  app: AppWithSecrets;
  /** The entries written since the last call that match the filters, oldest first. */
  next(): Promise<RequestLogEntryView[]>;
  /** Where the feed has read up to (the Last-Event-ID to resume after), null while the log is empty. */
  position(): string | null;
}

type Query = Readonly<Record<string, unknown>>;

/** The query's parameters (queryParameters' rules); an empty one is the same as none. */
function parameters(query: Query, known: readonly string[]): Record<string, string> {
  return Object.fromEntries(Object.entries(queryParameters(query, known)).filter(([, value]) => value !== ''));
}

const knownErrors = new Set<string>([...oauthErrors, ...Object.keys(problemCodes)]);
const operations = new Set<string>(requestOperations);

function filterOf({ status, operation, error }: Record<string, string>): {
  filter: RequestFilter;
  values: RequestLogFilterValues;
} {
  if (status !== undefined && !(statusClasses as readonly string[]).includes(status)) {
    refuse(`status must be one of ${statusClasses.join(', ')} (got "${status.slice(0, 40)}").`);
  }
  if (operation !== undefined && !operations.has(operation)) {
    refuse(`operation must be one of ${requestOperations.join(', ')} (got "${operation.slice(0, 40)}").`);
  }
  if (error !== undefined && !knownErrors.has(error)) {
    refuse(
      `error must be an OAuth error (${oauthErrors.join(', ')}) or a Problem code such as INVALID_TOKEN (got "${error.slice(0, 40)}").`,
    );
  }
  return {
    filter: {
      ...(status !== undefined && { statusClass: Number(status[0]) }),
      ...(operation !== undefined && { operation: operation as RequestOperation }),
      ...(error !== undefined && { error }),
    },
    values: {
      ...(status !== undefined && { status }),
      ...(operation !== undefined && { operation }),
      ...(error !== undefined && { error }),
    },
  };
}

function limitOf(given: string | undefined): number {
  if (given === undefined) return pageLimits.default;
  const limit = Number(given);
  if (!/^[0-9]{1,4}$/.test(given) || limit < 1 || limit > pageLimits.max) {
    refuse(`limit must be an integer from 1 to ${pageLimits.max}.`);
  }
  return limit;
}

const listParameters = ['status', 'operation', 'error', 'limit', 'cursor'] as const;
const followParameters = ['status', 'operation', 'error', 'after'] as const;

/** The console's reads of a developer's request logs, over these stores. */
export function requestLogs(prisma: PrismaClient, store: KeyValueStore, settings: RequestLogBounds) {
  const reader = requestLogReader(store, settings);
  const { maxEntries, maxFailedAuthentications, retentionHours } = settings;
  const find = (accountId: string, clientId: string) => appOfDeveloper(prisma, accountId, clientId);
  return {
    /** What each app's log keeps (REQUEST_LOG_*), for the pages to say. */
    bounds: { maxEntries, maxFailedAuthentications, retentionHours },

    /**
     * A page of the app's log, newest first: `query` is the request's (status 2xx, 4xx or 5xx;
     * operation token, revoke, cities or me; error an OAuth error or Problem code; limit 1 to 200,
     * 50 by default; cursor the next_cursor of the page before).
     */
    async list(accountId: string, clientId: string, query: Query = {}): Promise<RequestLogPage> {
      const given = parameters(query, listParameters);
      const { filter, values } = filterOf(given);
      const limit = limitOf(given.limit);
      const app = await find(accountId, clientId);
      let before: Position | undefined;
      if (given.cursor !== undefined) {
        before =
          parsePosition(given.cursor) ?? refuse('the cursor is not one this listing gave: start again without one');
      }
      const { entries, more } = await reader.older(app.clientId, { ...(before && { before }), limit, filter });
      const last = entries.at(-1);
      return { app, entries: entries.map(view), nextCursor: more && last ? last.id : null, filters: values };
    },

    /**
     * The app's log from now on; or after the entry a reconnecting tail's Last-Event-ID names (an id
     * that names none is ignored); or, on a first connection, after the entry `after` (a query
     * parameter, which a reconnection keeps in its URL: the Last-Event-ID wins). The same filters
     * as list.
     */
    async follow(accountId: string, clientId: string, query: Query = {}, lastEventId = ''): Promise<RequestLogFeed> {
      const given = parameters(query, followParameters);
      const { filter } = filterOf(given);
      let after: Position | null = null;
      if (given.after !== undefined) {
        after = parsePosition(given.after) ?? refuse('after must be the id of an entry of this log.');
      }
      const app = await find(accountId, clientId);
      const start = parsePosition(lastEventId) ?? after ?? (await reader.newest(app.clientId));
      let position = start;
      return {
        app,
        async next() {
          const read = await reader.newer(app.clientId, position, filter);
          position = read.position;
          return read.entries.map(view);
        },
        position: () => (position ? positionText(position) : null),
      };
    },
  };
}
