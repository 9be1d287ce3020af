// The admin API's developer accounts: show one, suspend it, reactivate it. The accounts room
// (@devplat/domain/accounts) makes each change with its audit record, only when something changed,
// and tells every process's app directory; a second call answers `changed: false`.
import type { Account } from '@devplat/db';
import { accountWithEmail } from '@devplat/domain/accounts';
import { appCountOfAccount } from '@devplat/domain/apps';
import { reactivateAccount, suspendAccount } from '@devplat/domain/workflows';
import type { Context } from 'koa';
import { readReason } from './request.ts';
import { type AdminRoutes, answer, operatorOf } from './routes.ts';

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

export function accountRoutes({ prisma, directory, guarded }: AdminRoutes): void {
  guarded('/accounts/:email', {
    GET: async (ctx) => answer(ctx, 200, await accountView(prisma, await accountAt(prisma, ctx))),
  });
  for (const [verb, change] of [
    ['suspend', suspendAccount],
    ['reactivate', reactivateAccount],
  ] as const) {
    guarded(`/accounts/:email/${verb}`, {
      POST: async (ctx) => {
        const reason = readReason(ctx);
        const account = await accountAt(prisma, ctx);
        const changed = await change(prisma, directory, operatorOf(ctx), account, { reason });
        const now = changed ? await accountAt(prisma, ctx) : account;
        answer(ctx, 200, { account: await accountView(prisma, now), changed });
      },
    });
  }
}
