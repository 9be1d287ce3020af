// JSON request bodies for the console API: application/json only, at most 16 KiB.
import { ProblemError, readBody } from '@devplat/http';
import type { Context } from 'koa';

export const jsonLimit = 16 * 1024;

export async function readJson(ctx: Context): Promise<unknown> {
  const length = Number(ctx.get('Content-Length') || 0);
  if (!ctx.request.type && length === 0 && !ctx.get('Transfer-Encoding')) return {};
  if (!ctx.is('application/json')) {
    throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON (Content-Type: application/json).');
  }
  const text = await readBody(ctx, jsonLimit);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ProblemError('MALFORMED_REQUEST', 'The body is not valid JSON.');
  }
}
