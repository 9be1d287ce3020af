// What the admin API reads of a request once the admin API's document has checked it
// (request-checks.ts): the reason of a change, and a listing's page and filters. None echoes a value.
import { maxReasonLength, operatorReason, type ReasonFault } from '@devplat/domain/audit';
import { refuse } from '@devplat/domain/refusal';
import { requestBody } from '@devplat/http';
import type { Context } from 'koa';

/** `{"reason": "…"}`, optional: why, for the audit record; null when not given or blank. */
export function readReason(ctx: Context): string | null {
  const { reason } = requestBody(ctx);
  if (typeof reason !== 'string') return null;
  const read = operatorReason(reason);
  if ('reason' in read) return read.reason;
  return refuse('INVALID_INPUT', refusals[read.fault]);
}

const refusals: Record<ReasonFault, string> = {
  'too long': `reason must be at most ${maxReasonLength} characters.`,
  'control character': 'reason may hold no control character but tabs and line breaks.',
  'not storable': 'reason may hold no lone surrogate.',
};

/** A query parameter as given (the document's check lets each through at most once). */
export const queryText = (ctx: Context, name: string): string | undefined => ctx.query[name] as string | undefined;

/** limit and cursor of a listing, as given; the domain checks the cursor. */
export function pageOf(ctx: Context): { limit?: number; cursor?: string } {
  const limit = queryText(ctx, 'limit');
  const cursor = queryText(ctx, 'cursor');
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
