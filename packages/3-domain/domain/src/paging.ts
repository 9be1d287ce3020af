// Keyset paging for the operator's listings (audit records, accounts, players): newest first by
// (created_at, id), the next page named by an opaque cursor holding the last row's position. A
// position, not an offset, so rows written while an operator pages shift nothing: no row is skipped
// or shown twice. Also the checks every listing's filters share (times, limits, LIKE text).
import { isUuid, storableInstant, storableText, storableYears } from '@devplat/db';
import { Refusal } from './refusal.ts';

/** Where a row stands in a listing: created_at, then id to order rows of the same millisecond. */
export interface Position {
  createdAt: Date;
  id: string;
}

export interface Page<T> {
  items: T[];
  /** Gives the next page to the same listing; null on the last page. */
  nextCursor: string | null;
}

/** newest: newest first, as the listings show them; oldest: oldest first, as an export writes them. */
export type Order = 'newest' | 'oldest';

export const pageLimits = { default: 50, max: 200 } as const;

/** The page size asked for, or the default; a Refusal when it is not an integer from 1 to the maximum. */
export function pageLimit(given: number | undefined): number {
  if (given === undefined) return pageLimits.default;
  if (!Number.isInteger(given) || given < 1 || given > pageLimits.max) {
    throw new Refusal('INVALID_INPUT', `limit must be an integer from 1 to ${pageLimits.max} (got ${given})`);
  }
  return given;
}

// The listing's name is inside, so a cursor of one listing is refused by another rather than
// silently starting somewhere else.
export function encodeCursor(listing: string, { createdAt, id }: Position): string {
  return Buffer.from(JSON.stringify([listing, createdAt.toISOString(), id])).toString('base64url');
}

export function decodeCursor(listing: string, cursor: string): Position {
  const refusal = () =>
    new Refusal('INVALID_INPUT', 'the cursor is not one this listing gave: start again without one');
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refusal();
  }
  if (!Array.isArray(decoded) || decoded.length !== 3) throw refusal();
  const [name, time, id] = decoded as unknown[];
  if (name !== listing || typeof time !== 'string' || typeof id !== 'string' || !isUuid(id)) throw refusal();
  const createdAt = new Date(time);
  if (!storableInstant(createdAt) || createdAt.toISOString() !== time) throw refusal();
  return { createdAt, id };
}

/**
 * The rows of one page: `fetch` reads up to `take` rows after a position (none: from the start),
 * in the listing's order; one row more than the limit tells whether there is a next page.
 */
export async function page<T extends Position>(
  listing: string,
  { limit, cursor }: { limit?: number; cursor?: string },
  fetch: (after: Position | null, take: number) => Promise<T[]>,
): Promise<Page<T>> {
  const size = pageLimit(limit);
  const after = cursor === undefined ? null : decodeCursor(listing, cursor);
  const rows = await fetch(after, size + 1);
  const items = rows.slice(0, size);
  const last = items.at(-1);
  return { items, nextCursor: rows.length > size && last ? encodeCursor(listing, last) : null };
}

/**
 * The Prisma condition for rows after a position: older ones newest first, newer ones oldest first.
 * The created_at bound is redundant with the OR but is the one an index can start its range at, so
 * page n reads one page, not n.
 */
export function beyond({ createdAt, id }: Position, order: Order) {
  if (order === 'newest') {
    return { createdAt: { lte: createdAt }, OR: [{ createdAt: { lt: createdAt } }, { createdAt, id: { lt: id } }] };
  }
  return { createdAt: { gte: createdAt }, OR: [{ createdAt: { gt: createdAt } }, { createdAt, id: { gt: id } }] };
}

/** The Prisma order of a listing: by created_at, then id. */
export function orderOf(order: Order) {
  const direction: 'asc' | 'desc' = order === 'newest' ? 'desc' : 'asc';
  return [{ createdAt: direction }, { id: direction }];
}

const dateTime =
  /^(\d{4})-(\d{2})-(\d{2})(?:T([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d)(?:\.\d{1,9})?)?(Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d))?$/;

/**
 * An ISO 8601 instant: a date (midnight UTC) or a date and time with Z or an offset. A time without
 * a zone is refused rather than read in the machine's zone, and so is one the database cannot keep
 * (year 0, say: @devplat/db's storableInstant), as a bad value rather than a failed query.
 */
export function instant(name: string, value: string | Date): Date {
  const parsed = parsedInstant(name, value);
  if (!storableInstant(parsed)) {
    throw new Refusal(
      'INVALID_INPUT',
      `${name} must be a time from the year ${storableYears.first} to ${storableYears.last} (got "${value instanceof Date ? value.toISOString() : String(value).trim()}")`,
    );
  }
  return parsed;
}

function parsedInstant(name: string, value: string | Date): Date {
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value;
  const text = String(value).trim();
  const match = dateTime.exec(text);
  const [, year, month, day, hour] = match ?? [];
  const calendarDay = new Date(`${year}-${month}-${day}T00:00:00Z`);
  // Date reads 2025-02-30 as 2 March: the day must come back as written.
  const realDay =
    !Number.isNaN(calendarDay.getTime()) && calendarDay.toISOString().startsWith(`${year}-${month}-${day}`);
  if (!match || !realDay) {
    throw new Refusal(
      'INVALID_INPUT',
      `${name} must be an ISO 8601 time with its zone, e.g. 2025-01-31T12:00:00Z, or a date (got "${text}")`,
    );
  }
  return hour === undefined ? calendarDay : new Date(text);
}

/** since (inclusive) and until (exclusive), each optional; a Refusal when until is not after since. */
export function timeRange(
  names: { since: string; until: string },
  since: string | Date | undefined,
  until: string | Date | undefined,
): { gte?: Date; lt?: Date } | undefined {
  const from = since === undefined ? undefined : instant(names.since, since);
  const to = until === undefined ? undefined : instant(names.until, until);
  if (from && to && to <= from) {
    throw new Refusal('INVALID_INPUT', `${names.until} must be after ${names.since}`);
  }
  if (!from && !to) return undefined;
  return { ...(from && { gte: from }), ...(to && { lt: to }) };
}

/** Text matched literally inside LIKE (Prisma's contains and startsWith do not escape % and _). */
export const likeLiteral = (text: string): string => text.replace(/[\\%_]/g, '\\$&');

/** A required search text: trimmed, not empty, at most `max` characters, storable (@devplat/db's storableText). */
export function searchText(name: string, value: string, max = 200): string {
  const text = value.trim();
  if (text === '' || text.length > max) {
    throw new Refusal('INVALID_INPUT', `${name} must be 1 to ${max} characters`);
  }
  if (!storableText(text))
    throw new Refusal('INVALID_INPUT', `${name} must not hold a NUL character or a lone surrogate`);
  return text;
}

/** One of the allowed values (a status, say); a Refusal naming them otherwise. */
export function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  const found = allowed.find((candidate) => candidate === value.trim());
  if (!found) throw new Refusal('INVALID_INPUT', `${name} must be one of ${allowed.join(', ')} (got "${value}")`);
  return found;
}
