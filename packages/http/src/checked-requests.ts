// The middleware a JSON API door puts before each operation's handler: the request checked by the
// operation's check from the API's OpenAPI document (@devplat/contract/requests), the JSON body read
// (application/json only, at most 16 KiB; none at all is {}) and checked, and kept for the handler
// (requestBody). The door words each finding (`refuse`); nothing reaches a handler unchecked.
import type { OperationCheck, RequestChecks, RequestFinding } from '@devplat/contract/requests';
import type { Context, Middleware } from 'koa';
import { readBody } from './forms.ts';
import { ProblemError } from './problem.ts';
import type { OperationHandlers, OperationMethod } from './routes.ts';

export const jsonBodyLimit = 16 * 1024;

declare module 'koa' {
  interface DefaultState {
    /** The request's JSON body, checked by the operation's document (checkedRequest). */
    body?: Record<string, unknown>;
  }
}

export function checkedRequest(check: OperationCheck, refuse: (finding: RequestFinding) => never): Middleware {
  return async (ctx, next) => {
    const found = check.parameters({ params: ctx.params ?? {}, query: ctx.query });
    if (found) refuse(found);
    if (check.takesBody) {
      const body = await readJsonBody(ctx);
      const wrong = check.body(body);
      if (wrong) refuse(wrong);
      ctx.state.body = body as Record<string, unknown>;
    }
    return next();
  };
}

/**
 * An operation's handlers, each behind its check from the door's document (`requestChecks(name)`,
 * compiled as the door starts), for operation(); throws for a method the document does not
 * describe on that Koa route path, so a route cannot be served undocumented.
 */
export function operationChecks(
  checks: RequestChecks,
  refuse: (finding: RequestFinding) => never,
): (path: string, handlers: OperationHandlers) => OperationHandlers {
  return (path, handlers) => {
    const checked: OperationHandlers = {};
    for (const [method, handler] of Object.entries(handlers) as [OperationMethod, Middleware | Middleware[]][]) {
      const check = checks.operation(method, path);
      if (!check) throw new Error(`${checks.name} documents no ${method} ${path}`);
      checked[method] = [checkedRequest(check, refuse), ...[handler].flat()];
    }
    return checked;
  };
}

/** The body checkedRequest read: {} for an operation that takes none. */
export const requestBody = (ctx: Context): Record<string, unknown> => ctx.state.body ?? {};

/** The body as JSON: 415 for another media type, 413 past the limit, MALFORMED_REQUEST if not JSON. */
async function readJsonBody(ctx: Context): Promise<unknown> {
  const length = Number(ctx.get('Content-Length') || 0);
  if (!ctx.request.type && length === 0 && !ctx.get('Transfer-Encoding')) return {};
  if (!ctx.is('application/json')) {
    throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON (Content-Type: application/json).');
  }
  const text = await readBody(ctx, jsonBodyLimit);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ProblemError('MALFORMED_REQUEST', 'The body is not valid JSON.');
  }
}
