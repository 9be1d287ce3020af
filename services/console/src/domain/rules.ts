// The console's input rules, shared by the JSON API and the web forms. Each check answers why a
// value is refused, in words a developer can act on (INVALID_INPUT).
import { storableText } from '@devplat/db';
import { refuse as refuseAs } from '@devplat/domain/refusal';

/** A refusal of the developer's input, with the reason. */
export function refuse(reason: string): never {
  return refuseAs('INVALID_INPUT', reason);
}

/**
 * The query of a paged listing (an app's history, the sandbox players): limit and cursor, each at
 * most once; any other query parameter is refused. The limit's range and the cursor's listing are
 * the domain's to check (paging.ts).
 */
export function pageQuery(query: Readonly<Record<string, unknown>>): { limit?: number; cursor?: string } {
  const unknown = Object.keys(query).find((name) => name !== 'limit' && name !== 'cursor');
  if (unknown !== undefined) refuse(`Unknown query parameter ${unknown}: only limit and cursor.`);
  const one = (name: string): string | undefined => {
    const value = query[name];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') refuse(`${name} may appear once.`);
    return value;
  };
  const limit = one('limit');
  const cursor = one('cursor');
  if (limit !== undefined && !/^[0-9]{1,4}$/.test(limit)) refuse('limit must be an integer from 1 to 200.');
  return { ...(limit !== undefined && { limit: Number(limit) }), ...(cursor !== undefined && { cursor }) };
}

// Control characters, and format characters (bidi overrides, zero-width joiners) that could make a
// name read differently on the consent screen from what it is.
const controlCharacters = /[\p{Cc}\p{Cf}]/u;

export function requiredText(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string') refuse(`${field} is required and must be a string.`);
  const text = value.trim();
  if (text === '') refuse(`${field} must not be empty.`);
  if (text.length > max) refuse(`${field} may be at most ${max} characters.`);
  if (controlCharacters.test(text)) refuse(`${field} must not contain control or formatting characters.`);
  if (!storableText(text)) refuse(`${field} must not contain a lone surrogate.`);
  return text;
}

export function optionalText(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null || value === '') return null;
  return requiredText(value, field, max);
}

export function email(value: unknown): string {
  const text = requiredText(value, 'email', 254).toLowerCase();
  if (!/^[^\s@]+@[^\s@.]+(\.[^\s@.]+)+$/.test(text)) refuse('email must be an e-mail address.');
  return text;
}

export function password(value: unknown, min: number): string {
  if (typeof value !== 'string') refuse('password is required and must be a string.');
  if (value.length < min) refuse(`password must be at least ${min} characters.`);
  if (value.length > 128) refuse('password may be at most 128 characters.');
  return value;
}

export function username(value: unknown): string {
  const text = requiredText(value, 'username', 32);
  if (!/^[a-z0-9][a-z0-9_.-]{2,31}$/.test(text)) {
    refuse('username must be 3 to 32 characters: lower-case letters, digits, and _ . - (not first).');
  }
  return text;
}

export function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    refuse(`${field} must be an array of strings.`);
  }
  return value as string[];
}

/**
 * A request's JSON body as a door hands it over: an object whose members and their JSON types the
 * console API's document has checked (the web forms build theirs); each member's value is checked
 * here, by the rules above.
 */
export type JsonBody = Readonly<Record<string, unknown>>;
