import { parse } from 'node:querystring';
import type { Context } from 'koa';
import { ProblemError } from './problem.ts';

/**
 * Reads an application/x-www-form-urlencoded body of at most `limit` bytes. Every field must
 * appear once: a repeated field is refused, never resolved by guessing.
 */
export async function readForm(ctx: Context, limit = 8 * 1024): Promise<Record<string, string>> {
  if (!ctx.is('application/x-www-form-urlencoded')) {
    throw new ProblemError('MALFORMED_REQUEST', 'Expected a form (application/x-www-form-urlencoded).');
  }
  if (Number(ctx.get('Content-Length') || 0) > limit) {
    throw new ProblemError('PAYLOAD_TOO_LARGE', `The form may be at most ${limit} bytes.`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new ProblemError('PAYLOAD_TOO_LARGE', `The form may be at most ${limit} bytes.`);
    chunks.push(chunk as Buffer);
  }
  const fields = parse(Buffer.concat(chunks).toString('utf8'));
  const form: Record<string, string> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (typeof value !== 'string')
      throw new ProblemError('MALFORMED_REQUEST', `The field ${name} appears more than once.`);
    form[name] = value;
  }
  return form;
}
