// The admin API's apps: show one, suspend one, lift the suspension (listings.ts finds them). The apps room
// (@devplat/domain/apps) reads them and makes each change with its audit record, only when
// something changed, telling every process's app directory before and after it; a second call
// answers `changed: false`. appView is the app as every answer here shows it.
import type { App } from '@devplat/db';
import { emailsOfAccounts } from '@devplat/domain/accounts';
import { appDetails, appWithClientId, findApp, suspendApp, unsuspendApp } from '@devplat/domain/apps';
import type { Context } from 'koa';
import { tokensLastDayOrNull } from '../usage.ts';
import { readReason } from './request.ts';
import { type AdminRoutes, answer, operatorOf } from './routes.ts';

const clientIdAt = (ctx: Context) => ctx.params.client_id as string;

/** The app with the path's client id, unless there is none or its developer deleted it (404). */
export const appAt = (prisma: AdminRoutes['prisma'], ctx: Context): Promise<App> =>
  appWithClientId(prisma, clientIdAt(ctx));

/** The apps as every answer here shows them, their developers' e-mails read in one statement. */
export async function appViews(prisma: AdminRoutes['prisma'], apps: readonly App[]) {
  const emails = await emailsOfAccounts(
    prisma,
    apps.map((app) => app.accountId),
  );
  return apps.map((app) => ({
    id: app.id,
    client_id: app.clientId,
    name: app.name,
    status: app.status,
    account: { id: app.accountId, email: emails.get(app.accountId) ?? null },
    created_at: app.createdAt.toISOString(),
    suspended_at: app.suspendedAt?.toISOString() ?? null,
  }));
}

const appView = async (prisma: AdminRoutes['prisma'], app: App) => (await appViews(prisma, [app]))[0]!;

export function appRoutes({ prisma, directory, usage, guarded }: AdminRoutes): void {
  // Deleted apps too: an operator looking into one may need what its developer removed. The token
  // count is Redis's, the rest PostgreSQL's: a Redis that does not answer leaves tokens_last_day
  // null rather than hiding the app from an operator in an incident.
  guarded('/apps/:client_id', {
    GET: async (ctx) => {
      const details = await appDetails(prisma, clientIdAt(ctx));
      const { app } = details;
      const tokensLastDay = await tokensLastDayOrNull(usage, app.id);
      answer(ctx, 200, {
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
      });
    },
  });

  for (const [verb, change] of [
    ['suspend', suspendApp],
    ['unsuspend', unsuspendApp],
  ] as const) {
    guarded(`/apps/:client_id/${verb}`, {
      POST: async (ctx) => {
        const reason = readReason(ctx);
        const app = await appAt(prisma, ctx);
        const changed = await change(prisma, directory, operatorOf(ctx), app.id, { reason });
        const now = changed ? ((await findApp(prisma, app.id)) ?? app) : app;
        answer(ctx, 200, { app: await appView(prisma, now), changed });
      },
    });
  }
}
