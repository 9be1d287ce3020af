// The admin API's apps: suspend one, lift the suspension. The apps room (@devplat/domain/apps)
// makes each change with its audit record, only when something changed, and tells every process's
// app directory before and after it; a second call answers `changed: false`. (Finding and showing
// apps is a resource of its own; appView is the app as every answer here shows it.)
import type { App } from '@devplat/db';
import { findAccount } from '@devplat/domain/accounts';
import { findApp, findAppByClientId, suspendApp, unsuspendApp } from '@devplat/domain/apps';
import { refuse } from '@devplat/domain/refusal';
import type { Context } from 'koa';
import { pathText, readReason } from './request.ts';
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

export function appRoutes({ prisma, directory, guarded }: AdminRoutes): void {
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
