// The admin API's developer accounts: show one, suspend it, reactivate it. The accounts room
// (@devplat/domain/accounts) makes each change with its audit record, only when something changed,
// and tells every process's app directory; a second call answers `changed: false`.
import type { Account } from '@devplat/db';
import { accountWithEmail } from '@devplat/domain/accounts';
import { appCountOfAccount } from '@devplat/domain/apps';
import { reactivateAccount, suspendAccount } from '@devplat/domain/workflows';
import type { Context } from 'koa';
import { namedRowRoutes, type RowChange, shownAfter } from './named-rows.ts';
import { type AdminRoutes, operatorOf } from './routes.ts';

const accountAt = (prisma: AdminRoutes['prisma'], ctx: Context): Promise<Account> =>
  accountWithEmail(prisma, ctx.params.email as string);

async function accountView(prisma: AdminRoutes['prisma'], account: Account) {
  return {
    id: account.id,
    email: account.email,
    display_name: account.displayName,
    kind: account.kind,
    status: account.status,
    suspended_at: account.suspendedAt?.toISOString() ?? null,
    created_at: account.createdAt.toISOString(),
    apps: await appCountOfAccount(prisma, account.id),
  };
}

export function accountRoutes(routes: AdminRoutes): void {
  const { prisma, directory } = routes;
  const find = (ctx: Context) => accountAt(prisma, ctx);
  const changeBy =
    (change: typeof suspendAccount): RowChange<Account> =>
    async (ctx, account, reason) => {
      const changed = await change(prisma, directory, operatorOf(ctx), account, { reason });
      return shownAfter(
        changed,
        account,
        () => find(ctx),
        (now) => accountView(prisma, now),
      );
    };
  namedRowRoutes(routes, '/accounts/:email', 'account', {
    find,
    show: async (ctx) => accountView(prisma, await find(ctx)),
    changes: { suspend: changeBy(suspendAccount), reactivate: changeBy(reactivateAccount) },
  });
}
