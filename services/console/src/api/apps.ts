// The console API's app routes: list, register, read, edit, delete, enable and disable an app.
import { appView } from '../domain/apps.ts';
import { type ApiRoutes, actor, answer, who } from './context.ts';
import { readJson } from './json.ts';

export function appRoutes({ domain: { apps }, signedIn }: ApiRoutes): void {
  signedIn('/apps', {
    GET: async (ctx) => answer(ctx, 200, { data: (await apps.list(who(ctx).account.id)).map(appView) }),
    POST: async (ctx) => {
      const { app, clientSecret } = await apps.create(actor(ctx), await readJson(ctx));
      answer(ctx, 201, { app: appView(app), client_secret: clientSecret });
    },
  });
  signedIn('/apps/:clientId', {
    GET: async (ctx) => answer(ctx, 200, appView(await apps.find(who(ctx).account.id, ctx.params.clientId))),
    PATCH: async (ctx) =>
      answer(ctx, 200, appView((await apps.edit(actor(ctx), ctx.params.clientId, await readJson(ctx))).app)),
    DELETE: async (ctx) => answer(ctx, 200, appView(await apps.delete(actor(ctx), ctx.params.clientId))),
  });
  for (const verb of ['enable', 'disable'] as const) {
    signedIn(`/apps/:clientId/${verb}`, {
      POST: async (ctx) => {
        await readJson(ctx);
        answer(ctx, 200, appView(await apps[verb](actor(ctx), ctx.params.clientId)));
      },
    });
  }
}
