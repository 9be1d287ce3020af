// The console API's app routes: list, register, read, edit, delete, enable and disable an app. A
// read API key sees every app with its webhook signing secret as null: the secret lets whoever
// holds it sign events as the platform, which is more than reading.
import type { AppView } from '@devplat/contract';
import type { AppWithSecrets } from '@devplat/domain/apps';
import { requestBody } from '@devplat/http';
import type { Context } from 'koa';
import { appView } from '../views.ts';
import { type ApiRoutes, actor, answer, seesSigningSecrets, who } from './context.ts';

/** The app as this caller may see it. */
const viewFor = (ctx: Context, app: AppWithSecrets): AppView => {
  const view = appView(app);
  return seesSigningSecrets(ctx) ? view : { ...view, webhook_signing_secret: null };
};

export function appRoutes({ domain: { apps }, signedIn }: ApiRoutes): void {
  signedIn('/apps', {
    GET: async (ctx) =>
      answer(ctx, 200, { data: (await apps.list(who(ctx).account.id)).map((app) => viewFor(ctx, app)) }),
    POST: async (ctx) => {
      const { app, clientSecret } = await apps.create(actor(ctx), requestBody(ctx));
      answer(ctx, 201, { app: viewFor(ctx, app), client_secret: clientSecret });
    },
  });
  signedIn('/apps/:clientId', {
    GET: async (ctx) => answer(ctx, 200, viewFor(ctx, await apps.find(who(ctx).account.id, ctx.params.clientId))),
    PATCH: async (ctx) =>
      answer(ctx, 200, viewFor(ctx, (await apps.edit(actor(ctx), ctx.params.clientId, requestBody(ctx))).app)),
    DELETE: async (ctx) => answer(ctx, 200, viewFor(ctx, await apps.delete(actor(ctx), ctx.params.clientId))),
  });
  for (const verb of ['enable', 'disable'] as const) {
    signedIn(`/apps/:clientId/${verb}`, {
      POST: async (ctx) => {
        answer(ctx, 200, viewFor(ctx, await apps[verb](actor(ctx), ctx.params.clientId)));
      },
    });
  }
}
