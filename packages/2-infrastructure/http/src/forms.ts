import { parse } from 'node:querystring';
import type { Context } from 'koa';
import { ProblemError } from './problem.ts';
import { RequestAbortedError, requestCutOff } from './request-cut-off.ts';

/**
 * Reads an application/x-www-form-urlencoded body of at most `limit` bytes. Every field must
 * appear once: a repeated field is refused, never resolved by guessing.
 */
export async function readForm(ctx: Context, limit = 8 * 1024): Promise<Record<string, string>> {
  return (await readFormWithLists(ctx, [], limit)).fields;
}

/** As readForm, but the fields named in `lists` may repeat (checkboxes) and come back as arrays. */
export async function readFormWithLists(
  ctx: Context,
  lists: readonly string[],
  limit = 8 * 1024,
): Promise<{ fields: Record<string, string>; lists: Record<string, string[]> }> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new ProblemError('MALFORMED_REQUEST', 'Expected a form (application/x-www-form-urlencoded).');
  }
  const parsed = parse(await readBody(ctx, limit, 'form'));
  const form = { fields: {} as Record<string, string>, lists: {} as Record<string, string[]> };
  for (const name of lists) form.lists[name] = [];
  for (const [name, value] of Object.entries(parsed)) {
    if (lists.includes(name)) form.lists[name] = ([] as string[]).concat(value ?? []);
    else if (typeof value === 'string') form.fields[name] = value;
    else throw new ProblemError('MALFORMED_REQUEST', `The field ${name} appears more than once.`);
  }
  return form;
}

/**
 * The request body as text, refused with 413 once it is (or announces to be) over `limit` bytes;
 * a RequestAbortedError when the connection ends before the body arrived whole.
 */
export async function readBody(ctx: Context, limit: number, what = 'body'): Promise<string> {
  const tooLarge = () => new ProblemError('PAYLOAD_TOO_LARGE', `The ${what} may be at most ${limit} bytes.`);
  if (Number(ctx.get('Content-Length') || 0) > limit) throw tooLarge();
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of ctx.req) {
      size += (chunk as Buffer).length;
      if (size > limit) throw tooLarge();
      chunks.push(chunk as Buffer);
    }
  } catch (error) {
    throw requestCutOff(ctx.req) ? new RequestAbortedError() : error;
  }
  return Buffer.concat(chunks).toString('utf8');
}
