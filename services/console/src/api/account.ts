// The console API's account routes: register, sign in and out (bearer sessions), the account and
// its history. Signing out ends a session, so an API key cannot (SESSION_REQUIRED).
import { requestBody } from '@devplat/http';
import { accountView } from '../views.ts';
import { type ApiRoutes, answer, requester, who } from './context.ts';

export function accountRoutes({ domain, open, signedIn }: ApiRoutes): void {
  const { accounts, history } = domain;
  const sessions = domain.sessions.api;
  open('/accounts', {
    POST: async (ctx) => answer(ctx, 201, accountView(await accounts.register(requestBody(ctx), requester(ctx)))),
  });
  open('/sessions', {
    POST: async (ctx) => {
      const account = await accounts.authenticate(requestBody(ctx), requester(ctx));
      const { token, session } = await sessions.start({ accountId: account.id });
      answer(ctx, 201, { token, expires_at: new Date(session.expiresAt).toISOString() });
    },
  });
  signedIn(
    '/sessions/current',
    {
      DELETE: async (ctx) => {
        const caller = who(ctx);
        if (caller.via === 'session') await sessions.end(caller.token);
        answer(ctx, 204);
      },
    },
    'session',
  );
  signedIn('/account', { GET: (ctx) => answer(ctx, 200, accountView(who(ctx).account)) });
  signedIn('/account/history', {
    GET: async (ctx) => {
      const { entries, nextCursor } = await history.ofAccount(who(ctx).account.id, ctx.query);
      answer(ctx, 200, { data: entries, next_cursor: nextCursor });
    },
  });
}
