// The rules of a developer's input that every room shares (the console's JSON API and web forms
// hand it over): text, passwords, lists, a listing's page query. Each check answers why a value is
// refused, in words a developer can act on (INVALID_INPUT). A room's own values (an e-mail address,
// a username, a webhook URL) are checked in the room, with these.
import { storableText } from '@devplat/db';
import { refuse } from './refusal.ts';

/** A refusal of the developer's input, with the reason. */
export function refuseInput(reason: string): never {
  return refuse('INVALID_INPUT', reason);
}

/** "a and b", "a, b, c". */
const listed = (names: readonly string[]) => (names.length === 2 ? `${names[0]} and ${names[1]}` : names.join(', '));

/**
 * A query's parameters as the web UI's pages and the console's reads take them: each one of
 * `known`, given at most once; any other is refused, and so is one given twice.
 */
export function queryParameters(query: Readonly<Record<string, unknown>>, known: readonly string[]) {
  const given: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) {
    if (!known.includes(name)) refuseInput(`Unknown query parameter ${name}: only ${listed(known)}.`);
    if (typeof value !== 'string') refuseInput(`${name} may appear once.`);
    given[name] = value;
  }
  return given;
}

/**
 * The query of a paged listing (an app's history, the sandbox players): limit and cursor, each at
 * most once. The limit's range and the cursor's listing are the domain's to check (paging.ts).
 */
export function pageQuery(query: Readonly<Record<string, unknown>>): { limit?: number; cursor?: string } {
  const { limit, cursor } = queryParameters(query, ['limit', 'cursor']);
  if (limit !== undefined && !/^[0-9]{1,4}$/.test(limit)) refuseInput('limit must be an integer from 1 to 200.');
  return { ...(limit !== undefined && { limit: Number(limit) }), ...(cursor !== undefined && { cursor }) };
}

// Control characters, and format characters (bidi overrides, zero-width joiners) that could make a
// name read differently on the consent screen from what it is.
const controlCharacters = /[\p{Cc}\p{Cf}]/u;

export function requiredText(value: unknown, field: string, max: number): string {
  if (typeof value !== 'string') refuseInput(`${field} is required and must be a string.`);
  const text = value.trim();
  if (text === '') refuseInput(`${field} must not be empty.`);
  if (text.length > max) refuseInput(`${field} may be at most ${max} characters.`);
  if (controlCharacters.test(text)) refuseInput(`${field} must not contain control or formatting characters.`);
  if (!storableText(text)) refuseInput(`${field} must not contain a lone surrogate.`);
  return text;
}

export function optionalText(value: unknown, field: string, max: number): string | null {
  if (value === undefined || value === null || value === '') return null;
  return requiredText(value, field, max);
}

/** A password of at least `min` characters (a sandbox player's may be shorter than an account's). */
export function password(value: unknown, min: number): string {
  if (typeof value !== 'string') refuseInput('password is required and must be a string.');
  if (value.length < min) refuseInput(`password must be at least ${min} characters.`);
  if (value.length > 128) refuseInput('password may be at most 128 characters.');
  return value;
}

export function stringList(value: unknown, field: string): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    refuseInput(`${field} must be an array of strings.`);
  }
  return value as string[];
}

/**
 * A request's JSON body as a door hands it over: an object whose members and their JSON types the
 * console API's document has checked (the web forms build theirs); each member's value is checked
 * by the room it is for, with the rules above.
 */
export type JsonBody = Readonly<Record<string, unknown>>;
