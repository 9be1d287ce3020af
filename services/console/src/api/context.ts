// What every console API route shares: the router it registers on, the domain it calls, the
// sign-in guard (bearer credentials only: an API session's token, or a developer's API key), and
// the few helpers that turn a request into the domain's arguments and an answer.
import { apiKeyPrefix } from '@devplat/contract';
import type { Account } from '@devplat/db';
import type { Requester } from '@devplat/domain/accounts';
import type { ApiKeyInUse } from '@devplat/domain/api-keys';
import type { Actor } from '@devplat/domain/audit';
import { type Logger, type OperationHandlers, ProblemError } from '@devplat/http';
import { operatorTokenPrefix } from '@devplat/keys';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { ConsoleDomain } from '../console-domain.ts';
import type { ConsoleSession } from '../sessions.ts';

/** Who calls: the account, and the credential the call came with. */
export type ApiCaller =
  | { via: 'session'; account: Account; token: string; session: ConsoleSession }
  | { via: 'key'; account: Account; key: ApiKeyInUse };

/**
 * Who may call an operation behind sign-in: `any` takes a session or an API key (a read key only
 * for GET and HEAD); `session` takes a session alone (managing API keys, changing the account).
 */
export type Access = 'any' | 'session';

export interface ApiRoutes {
  router: Router;
  domain: ConsoleDomain;
  logger: Logger;
  /**
   * Registers an operation behind sign-in (sets the caller, who(ctx)); `access` is `any` unless
   * given. Like `open`, it checks each request against the operation in the console API's document
   * after sign-in, before the handler, which finds the checked body in requestBody(ctx).
   */
  signedIn: (path: string, handlers: OperationHandlers, access?: Access) => void;
  /** Registers an operation anyone may call (registering, signing in). */
  open: (path: string, handlers: OperationHandlers) => void;
}

const challenge = { 'WWW-Authenticate': 'Bearer realm="developer-console"' };
const readMethods = ['GET', 'HEAD'];

const bearer = (ctx: Context) => /^Bearer ([^\s]+)$/i.exec(ctx.get('Authorization'))?.[1];

const notSignedIn = (detail: string) => new ProblemError('NOT_SIGNED_IN', detail, challenge);

/**
 * The guard of the routes behind sign-in. A web UI session's cookie value opens nothing here, nor
 * does an operator token (the admin API's). An API key is read afresh on every call, so a revoked
 * or expired key, or one of a suspended account, answers 401 on its next call.
 */
export function bearerSignIn(domain: ConsoleDomain, logger: Logger, access: Access = 'any'): Middleware {
  const { apiKeys, sessions } = domain;
  return async (ctx, next) => {
    const token = bearer(ctx);
    if (token?.startsWith(apiKeyPrefix)) {
      const key = await apiKeys.authenticate(token);
      if ('refused' in key) throw notSignedIn(key.refused);
      if (access === 'session') {
        throw new ProblemError(
          'SESSION_REQUIRED',
          'An API key cannot manage API keys or change the account: sign in (POST /api/sessions) and use that session.',
        );
      }
      if (key.scope === 'read' && !readMethods.includes(ctx.method)) {
        throw new ProblemError(
          'INSUFFICIENT_SCOPE',
          `This API key has the read scope: ${ctx.method} changes something and needs a key with the write scope.`,
        );
      }
      ctx.state.caller = { via: 'key', account: key.account, key };
      apiKeys.noteUse(key, (error) =>
        logger.warn(
          {
            request_id: ctx.state.requestId,
            api_key_id: key.id,
            error: error instanceof Error ? error.message : 'error',
          },
          "console API: writing an API key's last use failed",
        ),
      );
      return next();
    }
    const who = await sessions.signedIn(sessions.api, token);
    if (!who) {
      throw notSignedIn(
        token?.startsWith(operatorTokenPrefix)
          ? 'An operator token opens the admin API only. Sign in (POST /api/sessions) or send an API key.'
          : 'Sign in first: POST /api/sessions gives a token for the Authorization: Bearer header (or send an API key).',
      );
    }
    ctx.state.caller = { via: 'session', ...who };
    await next();
  };
}

/** The signed-in caller (behind `signedIn` only). */
export const who = (ctx: Context) => ctx.state.caller!;
export const actor = (ctx: Context): Actor => ({ accountId: who(ctx).account.id, requestId: ctx.state.requestId });
export const requester = (ctx: Context): Requester => ({ requestId: ctx.state.requestId, address: ctx.ip });
/** Whether the caller may see secrets a read key never sees (an app's webhook signing secret). */
export const seesSigningSecrets = (ctx: Context) => {
  const caller = who(ctx);
  return caller.via === 'session' || caller.key.scope === 'write';
};
export const answer = (ctx: Context, status: number, body?: unknown) => {
  ctx.status = status;
  if (body !== undefined) ctx.body = body;
};

/**
 * A handler acting as the caller on the app its path names (:clientId): answers `status`, with
 * what `view` makes of the outcome as the body.
 */
export const onApp =
  <Outcome>(
    act: (actor: Actor, clientId: string) => Promise<Outcome>,
    status: number,
    view: (outcome: Outcome) => unknown,
  ): Middleware =>
  async (ctx) => {
    answer(ctx, status, view(await act(actor(ctx), ctx.params.clientId)));
  };
