// What the admin API reads of a request besides its path: no query parameter but those an
// operation names, and a JSON body of at most 16 KiB with only the members it names. Each refusal
// says what was wrong; none echoes a value.
import { storableText } from '@devplat/db';
import { ProblemError, readBody } from '@devplat/http';
import type { Context, Middleware } from 'koa';

export const bodyLimit = 16 * 1024;

/**
 * A path parameter, decoded: refused (400 INVALID_REQUEST) when no account or player could have it,
 * longer than `max` or holding a control character, before any store is asked.
 */
export function pathText(ctx: Context, name: string, what: string, max: number): string {
  const value = String(ctx.params[name] ?? '');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (value === '' || value.length > max || /[\u0000-\u001f\u007f]/.test(value)) {
    throw new ProblemError(
      'INVALID_REQUEST',
      `The ${what} in the path must be 1 to ${max} characters, none of them a control character.`,
    );
  }
  return value;
}

/** Refuses a query parameter the operation does not take (400 INVALID_REQUEST). */
export function queryOnly(allowed: readonly string[]): Middleware {
  return (ctx, next) => {
    const unknown = Object.keys(ctx.query).find((name) => !allowed.includes(name));
    if (unknown !== undefined) {
      const takes = allowed.length ? `This operation takes ${allowed.join(', ')}.` : 'This operation takes none.';
      throw new ProblemError('INVALID_REQUEST', `Unknown query parameter ${JSON.stringify(unknown)}. ${takes}`);
    }
    return next();
  };
}

/** The body as a JSON object with only the `allowed` members; no body at all is {}. */
export async function readJsonObject(ctx: Context, allowed: readonly string[]): Promise<Record<string, unknown>> {
  const length = Number(ctx.get('Content-Length') || 0);
  if (!ctx.request.type && length === 0 && !ctx.get('Transfer-Encoding')) return {};
  if (!ctx.is('application/json')) {
    throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON (Content-Type: application/json).');
  }
  const text = await readBody(ctx, bodyLimit);
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ProblemError('MALFORMED_REQUEST', 'The body is not valid JSON.');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ProblemError('INVALID_REQUEST', 'The body must be a JSON object.');
  }
  const unknown = Object.keys(value).find((name) => !allowed.includes(name));
  if (unknown !== undefined) {
    throw new ProblemError(
      'INVALID_REQUEST',
      `Unknown member ${JSON.stringify(unknown)}. Allowed: ${allowed.join(', ') || 'none'}.`,
    );
  }
  return value as Record<string, unknown>;
}

/** `{"reason": "…"}`, optional: why, for the audit record; null when not given or blank. */
export async function readReason(ctx: Context): Promise<string | null> {
  const { reason } = await readJsonObject(ctx, ['reason']);
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== 'string') throw new ProblemError('INVALID_REQUEST', 'reason must be a string.');
  if (reason.length > 1_000) throw new ProblemError('INVALID_REQUEST', 'reason must be at most 1000 characters.');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(reason)) {
    throw new ProblemError('INVALID_REQUEST', 'reason may hold no control character but tabs and line breaks.');
  }
  if (!storableText(reason)) throw new ProblemError('INVALID_REQUEST', 'reason may hold no lone surrogate.');
  return reason.trim() === '' ? null : reason.trim();
}

/** A query parameter given once, or undefined; twice is refused rather than one of them picked. */
export function queryText(ctx: Context, name: string): string | undefined {
  const value = ctx.query[name];
  if (Array.isArray(value)) throw new ProblemError('INVALID_REQUEST', `The query parameter ${name} is given twice.`);
  return value;
}

/** limit and cursor of a listing, as given; the domain checks their values. */
export function pageOf(ctx: Context): { limit?: number; cursor?: string } {
  const limit = queryText(ctx, 'limit');
  const cursor = queryText(ctx, 'cursor');
  if (limit !== undefined && !/^\d{1,6}$/.test(limit)) {
    throw new ProblemError('INVALID_REQUEST', `limit must be a whole number from 1 to 200 (got "${limit}").`);
  }
  return { ...(limit !== undefined && { limit: Number(limit) }), ...(cursor !== undefined && { cursor }) };
}

/** The query parameters named in `members` (parameter → search member), as given. */
export function filtersOf(ctx: Context, members: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(members).flatMap(([name, member]) => {
      const value = queryText(ctx, name);
      return value === undefined ? [] : [[member, value]];
    }),
  );
}
