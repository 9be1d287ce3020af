// PostgreSQL failures that are the database's rather than the statement's (refused, dropped, timed
// out, shutting down) become DependencyUnavailableError here, at the driver, for Prisma and for the
// direct statements alike. A constraint violation or any other answer about the statement itself
// passes through unchanged, so Prisma still reports it as P2002 and the like.
import { DependencyUnavailableError } from '@devplat/errors';
import { isDriverAdapterError } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import type { AdapterHooks } from './adapter-proxy.ts';
import { Prisma, type PrismaClient } from './generated/client.ts';

// Prisma's driver-adapter error kinds that say the database, not the statement, failed.
const unavailableKinds = new Set([
  'DatabaseNotReachable',
  'DatabaseDoesNotExist',
  'DatabaseAccessDenied',
  'AuthenticationFailed',
  'ConnectionClosed',
  'SocketTimeout',
  'TlsConnectionError',
  'TooManyConnections',
]);

// SQLSTATE classes 08 (connection exception), 53 (insufficient resources), 57P (shutdown, cannot
// connect now) and 57014 (statement cancelled, as by statement_timeout).
const unavailableState = (code: string | undefined) =>
  code !== undefined && (/^(08|53|57P)/.test(code) || code === '57014');

/** The error to throw for a failure of a PostgreSQL call: DependencyUnavailableError or the error itself. */
export function postgresFailure(error: unknown): unknown {
  if (error instanceof DependencyUnavailableError) return error;
  if (error instanceof pg.DatabaseError) {
    return unavailableState(error.code) ? new DependencyUnavailableError('PostgreSQL', { cause: error }) : error;
  }
  if (isDriverAdapterError(error)) {
    const cause = error.cause;
    const unavailable =
      unavailableKinds.has(cause.kind) ||
      (cause.kind === 'postgres' && unavailableState(cause.code)) ||
      unavailableState(cause.originalCode);
    return unavailable ? new DependencyUnavailableError('PostgreSQL', { cause: error }) : error;
  }
  // Anything else comes from below the SQL layer: a socket, the pool's connection timeout.
  return new DependencyUnavailableError('PostgreSQL', { cause: error });
}

/**
 * The client with its transactions failing closed too: Prisma's own "Transaction API error" (P2028),
 * a transaction that could not start within `maxWait` or outlived its `timeout`, is the database's
 * failure to keep up, not the statement's. Every other error of a transaction passes unchanged.
 */
export function failingClosedTransactions(prisma: PrismaClient): PrismaClient {
  const transaction = prisma.$transaction.bind(prisma) as (...args: unknown[]) => Promise<unknown>;
  Object.defineProperty(prisma, '$transaction', {
    value: (...args: unknown[]) =>
      transaction(...args).catch((error: unknown) => Promise.reject(transactionFailure(error))),
  });
  return prisma;
}

function transactionFailure(error: unknown): unknown {
  return error instanceof Prisma.PrismaClientKnownRequestError && error.code === 'P2028'
    ? new DependencyUnavailableError('PostgreSQL', { cause: error })
    : error;
}

/**
 * The adapter hooks (adapter-proxy.ts) by which a driver adapter's connections and transactions
 * throw postgresFailure(error). Prisma passes errors of its own type through to the caller
 * untouched (verified with Prisma 7).
 */
export const failingClosedHooks: AdapterHooks = { failure: postgresFailure };
