// The admin API's apps: show one, suspend one, lift the suspension (listings.ts finds them). The apps room
// (@devplat/domain/apps) reads them and makes each change with its audit record, only when
// something changed, telling every process's app directory before and after it; a second call
// answers `changed: false`. appView is the app as every answer here shows it.
import type { App } from '@devplat/db';
import { appDetails, appWithClientId, findApp, suspendApp, unsuspendApp } from '@devplat/domain/apps';
import type { Context } from 'koa';
import { type OwningAccount, withOwningAccount, withOwningAccounts } from '../owning-accounts.ts';
import { tokensLastDayOrNull } from '../usage.ts';
import { namedRowRoutes, type RowChange, shownAfter } from './named-rows.ts';
import { type AdminRoutes, operatorOf } from './routes.ts';

const clientIdAt = (ctx: Context) => ctx.params.client_id as string;

/** The app with the path's client id, unless there is none or its developer deleted it (404). */
export const appAt = (prisma: AdminRoutes['prisma'], ctx: Context): Promise<App> =>
  appWithClientId(prisma, clientIdAt(ctx));

const appShown = (app: App, account: OwningAccount) => ({
  id: app.id,
  client_id: app.clientId,
  name: app.name,
  status: app.status,
  account,
  created_at: app.createdAt.toISOString(),
  suspended_at: app.suspendedAt?.toISOString() ?? null,
});

/** The apps as every answer here shows them, their developers' e-mails read in one statement. */
export const appViews = (prisma: AdminRoutes['prisma'], apps: readonly App[]) =>
  withOwningAccounts(prisma, apps, appShown);

const appView = (prisma: AdminRoutes['prisma'], app: App) => withOwningAccount(prisma, app, appShown);

/**
 * The app with this client id, deleted ones too: an operator looking into one may need what its
 * developer removed. The token count is Redis's, the rest PostgreSQL's: a Redis that does not
 * answer leaves tokens_last_day null rather than hiding the app from an operator in an incident.
 */
async function appInFull(prisma: AdminRoutes['prisma'], usage: AdminRoutes['usage'], clientId: string) {
  const details = await appDetails(prisma, clientId);
  const { app } = details;
  const tokensLastDay = await tokensLastDayOrNull(usage, app.id);
  return {
    ...(await appView(prisma, app)),
    scopes: app.scopes,
    redirect_uris: app.redirectUris,
    webhook_url: app.webhookUrl,
    deliveries_last_day: {
      pending: details.deliveriesLastDay.pending ?? 0,
      succeeded: details.deliveriesLastDay.succeeded ?? 0,
      failed: details.deliveriesLastDay.failed ?? 0,
    },
    tokens_last_day: tokensLastDay,
    secrets: details.secrets.map((secret) => ({
      id: secret.id,
      status: secret.status,
      created_at: secret.createdAt.toISOString(),
      revoked_at: secret.revokedAt?.toISOString() ?? null,
      last_used_at: secret.lastUsedAt?.toISOString() ?? null,
    })),
    active_consents: details.activeConsents,
  };
}

export function appRoutes(routes: AdminRoutes): void {
  const { prisma, directory, usage } = routes;
  const changeBy =
    (change: typeof suspendApp): RowChange<App> =>
    async (ctx, app, reason) => {
      const changed = await change(prisma, directory, operatorOf(ctx), app.id, { reason });
      const reread = async () => (await findApp(prisma, app.id)) ?? app;
      return shownAfter(changed, app, reread, (now) => appView(prisma, now));
    };
  namedRowRoutes(routes, '/apps/:client_id', 'app', {
    find: (ctx) => appAt(prisma, ctx),
    show: (ctx) => appInFull(prisma, usage, clientIdAt(ctx)),
    changes: { suspend: changeBy(suspendApp), unsuspend: changeBy(unsuspendApp) },
  });
}
