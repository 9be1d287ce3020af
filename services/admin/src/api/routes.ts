// What every admin API route module is given: the stores it works on and the two ways to register
// an operation. Each resource is one small module (accounts.ts, players.ts, …) that registers its
// paths here; app.ts lists them.
import type { AppDirectory } from '@devplat/app-directory';
import type { PrismaClient } from '@devplat/db';
import { type Logger, type OperationHandlers, operation } from '@devplat/http';
import type { TokenUsage } from '@devplat/usage';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { adminRequestChecks } from './request-checks.ts';

export interface AdminRoutes {
  prisma: PrismaClient;
  /** Told of every change to an app or an account, so every process's app cache hears of it. */
  directory: AppDirectory;
  /** The hourly token counters auth keeps on the same store: read for an app's tokens of the last day. */
  usage: TokenUsage;
  /**
   * PAIRWISE_SECRET (the auth service's), for the consent.revoked events of the consents an
   * operator ends; null when the process was started without it (consents.ts then answers 503).
   */
  pairwiseSecret: string | null;
  /** The API's logger (each line names the operator), for what happens after an answer has started. */
  logger: Logger;
  /**
   * An operation behind an operator token: GET (and HEAD) for any token, every other method for a
   * write token. Each request is then checked against the operation in the admin API's document
   * (its path parameters, query and body) before the handler, which finds the body in requestBody(ctx).
   */
  guarded(path: string, handlers: OperationHandlers): void;
  /** An operation anyone who reaches the listener may call: the API's own description. */
  open(path: string, handlers: OperationHandlers): void;
}

export type AdminResource = (routes: AdminRoutes) => void;

export function adminRoutes(
  router: Router,
  guard: Middleware,
  stores: Pick<AdminRoutes, 'prisma' | 'directory' | 'usage' | 'pairwiseSecret' | 'logger'>,
): AdminRoutes {
  const checked = adminRequestChecks();
  return {
    ...stores,
    guarded(path, handlers) {
      operation(router, path, checked(path, handlers), guard);
    },
    open(path, handlers) {
      operation(router, path, handlers);
    },
  };
}

/** The operator of a guarded request. */
export const operatorOf = (ctx: Context) => ({ operator: ctx.state.operator!.name });

export const answer = (ctx: Context, status: number, body: unknown) => {
  ctx.status = status;
  ctx.body = body;
};
