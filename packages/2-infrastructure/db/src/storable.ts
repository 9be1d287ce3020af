// What PostgreSQL can store, asked of a value from outside before any query holds it. Text: no
// NUL (PostgreSQL's text has none: 22021) and no lone UTF-16 surrogate (it has no UTF-8 form: the
// driver sends U+FFFD, and a lookup would compare another string than the one given).
// Instants: timestamptz keeps 4713 BC to 294276 AD, but not every one of them travels intact
// between Date and PostgreSQL here: Prisma's driver adapter writes a year without its era
// ("0000-01-01 00:00:00": 22008 for year 0, another year for those before) and reads a year past
// 9999 back as an invalid Date, and PGlite's driver refuses to write one (22009). What does is
// ISO 8601's four-digit years, 1 to 9999 AD. A value that cannot be stored names nothing stored: a
// lookup answers "not found", a filter or a new value is refused as a bad value.
import { UnstorableValueError } from '@devplat/errors';

/** Whether PostgreSQL can store the text as it is: no NUL, no lone surrogate. */
export const storableText = (value: string): boolean => value.isWellFormed() && !value.includes('\u0000');

/** The years storableInstant accepts (UTC), for refusals that say so. */
export const storableYears = { first: 1, last: 9999 } as const;

const firstInstant = Date.parse('0001-01-01T00:00:00.000Z');
const lastInstant = Date.parse('9999-12-31T23:59:59.999Z');

/** Whether the date is one the database keeps and gives back as it is: a real date from 1 AD to 9999 AD, UTC. */
export const storableInstant = (date: Date): boolean => {
  const time = date.getTime();
  return time >= firstInstant && time <= lastInstant;
};

// jsonb takes neither \u0000 nor a lone surrogate, and JSON text writes both as escapes.
const suspectJsonEscape = /\\u(?:0000|[dD][89a-fA-F])/;

function storableJson(text: string): boolean {
  if (!storableText(text)) return false;
  if (!suspectJsonEscape.test(text)) return true;
  let storable = true;
  try {
    JSON.parse(text, (key, value) => {
      if (!storableText(key) || (typeof value === 'string' && !storableText(value))) storable = false;
      return value;
    });
  } catch {
    // Not JSON at all: PostgreSQL's own answer about the statement.
  }
  return storable;
}

/** How a statement's parameter is typed, where the caller says (Prisma's argTypes). */
export type ParameterType = 'text' | 'instant' | 'json' | 'other';

/**
 * The error for the first parameter PostgreSQL cannot take as it is, or null. Strings, dates (and
 * an ISO text typed as an instant), JSON texts, and arrays of them: the database boundary's
 * backstop (guard.ts) checks every statement's parameters with it.
 */
export function unstorableParameter(value: unknown, type: ParameterType = 'other'): UnstorableValueError | null {
  if (Array.isArray(value)) {
    for (const each of value) {
      const refused = unstorableParameter(each, type);
      if (refused) return refused;
    }
    return null;
  }
  if (value instanceof Date || (type === 'instant' && typeof value === 'string')) {
    const date = value instanceof Date ? value : new Date(value);
    return storableInstant(date) ? null : new UnstorableValueError('instant');
  }
  if (typeof value !== 'string') return null;
  const storable = type === 'json' ? storableJson(value) : storableText(value);
  return storable ? null : new UnstorableValueError('text');
}
