// The console web UI's app pages: the list, create, the app's page, edit, delete, enable, disable.
import type { AppView, DeliveryView } from '@devplat/contract';
import { sendPage } from '@devplat/http';
import type { Context } from 'koa';
import { appView } from '../views.ts';
import { type AppFormValues, appPage, appsPage, deleteAppPage, editAppPage, newAppPage } from './app-pages.ts';
import { lastDays } from './chart.ts';
import { actor, appAction, form, frame, refused, type WebRoutes, who } from './context.ts';

/** The fields of the create and edit forms, as typed. */
const appFormValues = (ctx: Context) => {
  const { fields, lists } = form(ctx);
  return { name: fields.name, redirect_uris: fields.redirect_uris ?? '', scopes: lists.scopes ?? [] };
};
const uriLines = (values: AppFormValues) => (values.redirect_uris ?? '').split(/\s+/).filter(Boolean);
const editValues = (app: AppView): AppFormValues => ({
  name: app.name,
  redirect_uris: app.redirect_uris.join('\n'),
  scopes: app.scopes,
});

/** The app's page: its secrets, failed deliveries and the last days' activity. */
export async function showApp(
  { domain: { apps }, apiBase, takeNotice }: WebRoutes,
  ctx: Context,
  extra: { notice?: string; newSecret?: string } = {},
): Promise<void> {
  const days = lastDays(new Date());
  const since = new Date(`${days[0]}T00:00:00Z`);
  const { app, failedDeliveries, activity } = await apps.overview(
    who(ctx).account.id,
    ctx.params.clientId as string,
    since,
  );
  const view = frame(who(ctx), app.name, { notice: extra.notice ?? (await takeNotice(ctx)) });
  const extras = { apiBase, deliveries: failedDeliveries, newSecret: extra.newSecret, activity: { days, ...activity } };
  sendPage(ctx, 200, appPage(view, who(ctx).session.csrf, appView(app), extras));
}

/** The list of apps and the form that creates one. */
function listAndCreate({ signedInRoute, domain: { apps }, apiBase, takeNotice }: WebRoutes): void {
  signedInRoute('/apps', {
    GET: async (ctx) => {
      const notice = await takeNotice(ctx);
      const list = (await apps.list(who(ctx).account.id)).map(appView);
      sendPage(ctx, 200, appsPage(frame(who(ctx), 'Apps', { notice }), list));
    },
    POST: async (ctx) => {
      const values = { ...appFormValues(ctx), webhook_url: form(ctx).fields.webhook_url ?? '' };
      try {
        const { app, clientSecret } = await apps.create(actor(ctx), {
          name: values.name,
          redirect_uris: uriLines(values),
          scopes: values.scopes,
          webhook_url: values.webhook_url || null,
        });
        // A new app has delivered nothing yet.
        const deliveries: DeliveryView[] = [];
        const view = frame(who(ctx), app.name, { notice: `Created ${app.name}.` });
        const extras = { apiBase, newSecret: clientSecret, deliveries };
        sendPage(ctx, 201, appPage(view, who(ctx).session.csrf, appView(app), extras));
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        const view = frame(who(ctx), 'Create app', { error: reason });
        sendPage(ctx, status, newAppPage(view, who(ctx).session.csrf, values));
      }
    },
  });
  // Before /apps/:clientId, which would take "new" for a client id.
  signedInRoute('/apps/new', {
    GET: (ctx) => sendPage(ctx, 200, newAppPage(frame(who(ctx), 'Create app'), who(ctx).session.csrf)),
  });
}

function editPage({ signedInRoute, domain: { apps }, done }: WebRoutes): void {
  signedInRoute('/apps/:clientId/edit', {
    GET: async (ctx) => {
      const app = appView(await apps.find(who(ctx).account.id, ctx.params.clientId as string));
      sendPage(ctx, 200, editAppPage(frame(who(ctx), `Edit ${app.name}`), who(ctx).session.csrf, app, editValues(app)));
    },
    POST: async (ctx) => {
      const clientId = ctx.params.clientId as string;
      const values = appFormValues(ctx);
      try {
        const { app, removedScopes } = await apps.edit(actor(ctx), clientId, {
          name: values.name,
          redirect_uris: uriLines(values),
          scopes: values.scopes,
        });
        const notice = removedScopes.length
          ? `Saved ${app.name}. Removed ${removedScopes.join(', ')}: consents that held a removed user scope have ended.`
          : `Saved ${app.name}.`;
        await done(ctx, `/apps/${clientId}`, notice);
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        const app = appView(await apps.find(who(ctx).account.id, clientId));
        const view = frame(who(ctx), `Edit ${app.name}`, { error: reason });
        sendPage(ctx, status, editAppPage(view, who(ctx).session.csrf, app, values));
      }
    },
  });
}

function deletePage({ signedInRoute, domain: { apps }, done }: WebRoutes): void {
  signedInRoute('/apps/:clientId/delete', {
    GET: async (ctx) => {
      const { app, activeConsents } = await apps.withConsentCount(who(ctx).account.id, ctx.params.clientId as string);
      const view = frame(who(ctx), `Delete ${app.name}`);
      sendPage(ctx, 200, deleteAppPage(view, who(ctx).session.csrf, appView(app), activeConsents));
    },
    POST: async (ctx) => {
      const app = await apps.delete(actor(ctx), ctx.params.clientId as string);
      await done(ctx, '/apps', `Deleted ${app.name} (${app.clientId}). Its tokens stop on their next use.`);
    },
  });
}

export function appPages(web: WebRoutes): void {
  const { apps } = web.domain;
  listAndCreate(web);
  web.signedInRoute('/apps/:clientId', { GET: (ctx) => showApp(web, ctx) });
  appAction(web, '/disable', async (ctx, clientId) => {
    await apps.disable(actor(ctx), clientId);
    return 'Disabled the app. Its tokens stop on their next use.';
  });
  appAction(web, '/enable', async (ctx, clientId) => {
    await apps.enable(actor(ctx), clientId);
    return 'Enabled the app. Its tokens work again, and it can get new ones.';
  });
  editPage(web);
  deletePage(web);
}
