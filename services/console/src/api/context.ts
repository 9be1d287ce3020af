// What every console API route shares: the router it registers on, the domain it calls, the
// sign-in guard (bearer tokens only), and the few helpers that turn a request into the domain's
// arguments and an answer.
import type { Actor } from '@devplat/domain/audit';
import { type Logger, type OperationHandlers, ProblemError } from '@devplat/http';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { Requester } from '../domain/accounts.ts';
import type { ConsoleDomain } from '../domain/index.ts';

export interface ApiRoutes {
  router: Router;
  domain: ConsoleDomain;
  logger: Logger;
  /** Registers an operation behind sign-in: a live API session's bearer token (sets ctx.state.who). */
  signedIn: (path: string, handlers: OperationHandlers) => void;
}

const bearer = (ctx: Context) => /^Bearer ([^\s]+)$/i.exec(ctx.get('Authorization'))?.[1];

/** The guard of the routes behind sign-in: a web UI session's cookie value opens nothing here. */
export function bearerSignIn(domain: ConsoleDomain): Middleware {
  return async (ctx, next) => {
    const who = await domain.accounts.signedIn(domain.sessions.api, bearer(ctx));
    if (!who) {
      throw new ProblemError(
        'NOT_SIGNED_IN',
        'Sign in first: POST /api/sessions gives a token for the Authorization: Bearer header.',
        { 'WWW-Authenticate': 'Bearer realm="developer-console"' },
      );
    }
    ctx.state.who = who;
    await next();
  };
}

/** The signed-in account (behind `signedIn` only). */
export const who = (ctx: Context) => ctx.state.who!;
export const actor = (ctx: Context): Actor => ({ accountId: who(ctx).account.id, requestId: ctx.state.requestId });
export const requester = (ctx: Context): Requester => ({ requestId: ctx.state.requestId, address: ctx.ip });
export const answer = (ctx: Context, status: number, body?: unknown) => {
  ctx.status = status;
  if (body !== undefined) ctx.body = body;
};
