// The console JSON API at {console_url}/api (its endpoints are listed in README → Developer console),
// for the devplat CLI and scripts. API clients authenticate with the bearer token POST /api/sessions
// returns; no cookie is read here, so no request can ride on a browser's ambient credentials (the web
// UI has its own routes).

import type { Actor } from '@devplat/db';
import { type Logger, operation, ProblemError } from '@devplat/http';
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { accountView, type Requester, type SignedIn } from '../domain/accounts.ts';
import { appView } from '../domain/apps.ts';
import type { ConsoleDomain } from '../domain/index.ts';
import { playerView } from '../domain/players.ts';
import { streamEvents } from './event-stream.ts';
import { readJson } from './json.ts';

const bearer = (ctx: Context) => /^Bearer ([^\s]+)$/i.exec(ctx.get('Authorization'))?.[1];

export function consoleApiRouter(domain: ConsoleDomain, logger: Logger): Router {
  const { accounts, apps, players } = domain;
  // Bearer tokens only: a web UI session's cookie value opens nothing here.
  const sessions = domain.sessions.api;
  const router = new Router({ prefix: '/api', strict: true, sensitive: true });

  const signedIn: Middleware = async (ctx, next) => {
    const who = await accounts.signedIn(sessions, bearer(ctx));
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
  const who = (ctx: Context) => ctx.state.who as SignedIn;
  const actor = (ctx: Context): Actor => ({ accountId: who(ctx).account.id, requestId: ctx.state.requestId });
  const requester = (ctx: Context): Requester => ({ requestId: ctx.state.requestId, address: ctx.ip });
  const answer = (ctx: Context, status: number, body?: unknown) => {
    ctx.status = status;
    if (body !== undefined) ctx.body = body;
  };

  operation(router, '/accounts', {
    POST: async (ctx) => answer(ctx, 201, accountView(await accounts.register(await readJson(ctx), requester(ctx)))),
  });
  operation(router, '/sessions', {
    POST: async (ctx) => {
      const account = await accounts.authenticate(await readJson(ctx), requester(ctx));
      const { token, session } = await sessions.start({ accountId: account.id });
      answer(ctx, 201, { token, expires_at: new Date(session.expiresAt).toISOString() });
    },
  });
  operation(
    router,
    '/sessions/current',
    {
      DELETE: async (ctx) => {
        await sessions.end(who(ctx).token);
        answer(ctx, 204);
      },
    },
    signedIn,
  );
  operation(router, '/account', { GET: (ctx) => answer(ctx, 200, accountView(who(ctx).account)) }, signedIn);
  operation(
    router,
    '/apps',
    {
      GET: async (ctx) => answer(ctx, 200, { data: (await apps.list(who(ctx).account.id)).map(appView) }),
      POST: async (ctx) => {
        const { app, clientSecret } = await apps.create(actor(ctx), await readJson(ctx));
        answer(ctx, 201, { app: appView(app), client_secret: clientSecret });
      },
    },
    signedIn,
  );
  operation(
    router,
    '/apps/:clientId',
    {
      GET: async (ctx) => answer(ctx, 200, appView(await apps.find(who(ctx).account.id, ctx.params.clientId))),
      PATCH: async (ctx) =>
        answer(ctx, 200, appView((await apps.edit(actor(ctx), ctx.params.clientId, await readJson(ctx))).app)),
      DELETE: async (ctx) => answer(ctx, 200, appView(await apps.delete(actor(ctx), ctx.params.clientId))),
    },
    signedIn,
  );
  operation(
    router,
    '/apps/:clientId/enable',
    {
      POST: async (ctx) => {
        await readJson(ctx);
        answer(ctx, 200, appView(await apps.enable(actor(ctx), ctx.params.clientId)));
      },
    },
    signedIn,
  );
  operation(
    router,
    '/apps/:clientId/disable',
    {
      POST: async (ctx) => {
        await readJson(ctx);
        answer(ctx, 200, appView(await apps.disable(actor(ctx), ctx.params.clientId)));
      },
    },
    signedIn,
  );
  operation(
    router,
    '/apps/:clientId/secrets',
    {
      POST: async (ctx) => {
        await readJson(ctx);
        const { secretId, clientSecret } = await apps.rotateSecret(actor(ctx), ctx.params.clientId);
        answer(ctx, 201, { secret_id: secretId, client_secret: clientSecret });
      },
    },
    signedIn,
  );
  operation(
    router,
    '/apps/:clientId/secrets/:secretId',
    {
      DELETE: async (ctx) => {
        await apps.revokeSecret(actor(ctx), ctx.params.clientId, ctx.params.secretId);
        answer(ctx, 204);
      },
    },
    signedIn,
  );
  operation(
    router,
    '/apps/:clientId/webhooks/test',
    {
      POST: async (ctx) => {
        await readJson(ctx);
        const { deliveryId, eventId } = await apps.sendTestWebhook(actor(ctx), ctx.params.clientId);
        answer(ctx, 202, { delivery_id: deliveryId, event_id: eventId });
      },
    },
    signedIn,
  );
  operation(
    router,
    '/apps/:clientId/events',
    {
      GET: async (ctx) => {
        const app = await apps.find(who(ctx).account.id, ctx.params.clientId);
        const feed = await apps.eventFeed(app, ctx.get('Last-Event-ID'));
        streamEvents(ctx, feed, { logger, listening: (forSeconds) => apps.listening(app, forSeconds) });
      },
    },
    signedIn,
  );
  operation(
    router,
    '/apps/:clientId/deliveries',
    {
      GET: async (ctx) => {
        const unknown = Object.keys(ctx.query).find((name) => name !== 'status');
        if (unknown !== undefined) throw new ProblemError('INVALID_REQUEST', `Unknown query parameter ${unknown}.`);
        const status = ctx.query.status;
        if (Array.isArray(status)) throw new ProblemError('INVALID_REQUEST', 'status may appear once.');
        answer(ctx, 200, { data: await apps.deliveries(who(ctx).account.id, ctx.params.clientId, status) });
      },
    },
    signedIn,
  );
  operation(
    router,
    '/deliveries/:deliveryId/replay',
    {
      POST: async (ctx) => {
        await readJson(ctx);
        const { deliveryId } = await apps.replay(actor(ctx), ctx.params.deliveryId);
        answer(ctx, 202, { delivery_id: deliveryId });
      },
    },
    signedIn,
  );
  operation(
    router,
    '/sandbox-players',
    {
      GET: async (ctx) => answer(ctx, 200, { data: (await players.list(who(ctx).account.id)).map(playerView) }),
      POST: async (ctx) => answer(ctx, 201, playerView(await players.create(actor(ctx), await readJson(ctx), ctx.ip))),
    },
    signedIn,
  );
  for (const [verb, status] of [
    ['disable', 'disabled'],
    ['enable', 'active'],
  ] as const) {
    operation(
      router,
      `/sandbox-players/:playerId/${verb}`,
      {
        POST: async (ctx) => {
          await readJson(ctx);
          answer(ctx, 200, playerView(await players.setStatus(actor(ctx), ctx.params.playerId, status)));
        },
      },
      signedIn,
    );
  }
  // Production credentials stay closed until a security review opens production (contract rule 3).
  router.all(['/production-credentials', '/apps/:clientId/production-credentials'], () => {
    throw new ProblemError(
      'FEATURE_DISABLED',
      'Production credentials are not available: only sandbox apps exist until a security review opens production.',
    );
  });
  return router;
}
