// The middleware a JSON API door puts before each operation's handler: the request checked by the
// operation's check from the API's OpenAPI document (@devplat/contract/requests), the JSON body read
// (application/json in UTF-8 only, at most 16 KiB; none at all is {}) and checked, and kept for the
// handler (requestBody); a body sent to an operation the document gives none is refused unread. The
// door words each finding (`refuse`); nothing reaches a handler unchecked.
import type { OperationCheck, RequestChecks, RequestFinding } from '@devplat/contract/requests';
import type { Context, Middleware } from 'koa';
import { readBody } from './forms.ts';
import { ProblemError } from './problem.ts';
import type { OperationHandlers, OperationMethod } from './routes.ts';

export const jsonBodyLimit = 16 * 1024;

export function checkedRequest(check: OperationCheck, refuse: (finding: RequestFinding) => never): Middleware {
  return async (ctx, next) => {
    const found = check.parameters({ params: ctx.params ?? {}, query: ctx.query });
    if (found) refuse(found);
    if (check.takesBody) {
      const body = await readJsonBody(ctx);
      const wrong = check.body(body);
      if (wrong) refuse(wrong);
      ctx.state.body = body as Record<string, unknown>;
    } else if (carriesBody(ctx)) {
      // Refused unread: Node discards what the client still sends once the answer is written.
      throw new ProblemError('INVALID_REQUEST', 'This operation takes no body.');
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

/** Whether the request announces a body: a Content-Length over 0, or a Transfer-Encoding. */
const carriesBody = (ctx: Context) => Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== '';

/**
 * The charset parameters of a Content-Type, unquoted and lower-cased (none: []). Read here rather
 * than by Koa's request.charset, which says '' for a header whose other parameters do not parse
 * (`application/json; charset=utf-16; x`), where ctx.is still sees application/json.
 */
const charsetsOf = (contentType: string) =>
  contentType
    .split(';')
    .slice(1)
    .map((parameter) => parameter.split('='))
    .filter(([name]) => name?.trim().toLowerCase() === 'charset')
    .map(([, ...value]) =>
      value
        .join('=')
        .trim()
        .replace(/^"(.*)"$/s, '$1')
        .toLowerCase(),
    );

/**
 * The body as JSON: 415 for another media type or a charset other than UTF-8, 413 past the limit,
 * MALFORMED_REQUEST if not JSON.
 */
async function readJsonBody(ctx: Context): Promise<unknown> {
  if (!ctx.request.type && !carriesBody(ctx)) return {};
  if (!ctx.is('application/json')) {
    throw new ProblemError('UNSUPPORTED_MEDIA_TYPE', 'Send the body as JSON (Content-Type: application/json).');
  }
  if (charsetsOf(ctx.get('Content-Type')).some((charset) => charset !== 'utf-8')) {
    throw new ProblemError(
      'UNSUPPORTED_MEDIA_TYPE',
      'The body must be UTF-8 JSON: send Content-Type: application/json with no charset, or charset=utf-8.',
    );
  }
  const text = await readBody(ctx, jsonBodyLimit);
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch {
    throw new ProblemError('MALFORMED_REQUEST', 'The body is not valid JSON.');
  }
}
