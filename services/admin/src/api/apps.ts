// The admin API's apps: find them, show one, suspend one, lift the suspension. The apps room
// (@devplat/domain/apps) reads them and makes each change with its audit record, only when
// something changed, telling every process's app directory before and after it; a second call
// answers `changed: false`. appView is the app as every answer here shows it.
import type { App } from '@devplat/db';
import { findAccount } from '@devplat/domain/accounts';
import { appDetails, findApp, findAppByClientId, searchApps, suspendApp, unsuspendApp } from '@devplat/domain/apps';
import { refuse } from '@devplat/domain/refusal';
import type { Context } from 'koa';
import { pageOf, pathText, queryText, readReason } from './request.ts';
import { type AdminRoutes, answer, operatorOf } from './routes.ts';

/** The app with the path's client id, unless there is none or its developer deleted it (404). */
export async function appAt(prisma: AdminRoutes['prisma'], ctx: Context): Promise<App> {
  const clientId = pathText(ctx, 'client_id', 'client id', 100);
  const app = await findAppByClientId(prisma, clientId);
  if (!app) return refuse('APP_NOT_FOUND', `No app has the client id ${clientId}.`);
  if (app.status === 'deleted') return refuse('APP_NOT_FOUND', `The app ${clientId} was deleted by its developer.`);
  return app;
}

export async function appView(prisma: AdminRoutes['prisma'], app: App) {
  const account = await findAccount(prisma, app.accountId);
  return {
    id: app.id,
    client_id: app.clientId,
    name: app.name,
    status: app.status,
    account: { id: app.accountId, email: account?.email ?? null },
    created_at: app.createdAt.toISOString(),
    suspended_at: app.suspendedAt?.toISOString() ?? null,
  };
}

const searchFilters = {
  email: 'email',
  client_id: 'clientId',
  name: 'namePrefix',
  status: 'status',
  since: 'createdSince',
  until: 'createdUntil',
} as const;

export function appRoutes({ prisma, directory, guarded }: AdminRoutes): void {
  guarded(
    '/apps',
    {
      GET: async (ctx) => {
        const given = Object.entries(searchFilters).flatMap(([name, member]) => {
          const value = queryText(ctx, name);
          return value === undefined ? [] : [[member, value]];
        });
        const { items, nextCursor } = await searchApps(prisma, { ...Object.fromEntries(given), ...pageOf(ctx) });
        answer(ctx, 200, {
          data: await Promise.all(items.map((app) => appView(prisma, app))),
          next_cursor: nextCursor,
        });
      },
    },
    { query: [...Object.keys(searchFilters), 'limit', 'cursor'] },
  );

  // Deleted apps too: an operator looking into one may need what its developer removed.
  guarded('/apps/:client_id', {
    GET: async (ctx) => {
      const details = await appDetails(prisma, pathText(ctx, 'client_id', 'client id', 100));
      const { app } = details;
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
        secrets: details.secrets.map((secret) => ({
          id: secret.id,
          status: secret.status,
          created_at: secret.createdAt.toISOString(),
          revoked_at: secret.revokedAt?.toISOString() ?? null,
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
        const reason = await readReason(ctx);
        const app = await appAt(prisma, ctx);
        const changed = await change(prisma, directory, operatorOf(ctx), app.id, { reason });
        const now = changed ? ((await findApp(prisma, app.id)) ?? app) : app;
        answer(ctx, 200, { app: await appView(prisma, now), changed });
      },
    });
  }
}
