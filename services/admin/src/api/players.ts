// The admin API's sandbox players (usernames are unique across the sandbox): show one, disable it,
// enable it. The players room makes each change with its audit record, only when something
// changed; nothing caches a player's status, so the change holds from the very next call.
import type { SandboxPlayer } from '@devplat/db';
import { emailsOfAccounts } from '@devplat/domain/accounts';
import { disablePlayer, enablePlayer, playerWithUsername } from '@devplat/domain/players';
import type { Context } from 'koa';
import { readReason } from './request.ts';
import { type AdminRoutes, answer, operatorOf } from './routes.ts';

export const playerAt = (prisma: AdminRoutes['prisma'], ctx: Context): Promise<SandboxPlayer> =>
  playerWithUsername(prisma, ctx.params.username as string);

/** The players as every answer here shows them, their accounts' e-mails read in one statement. */
export async function playerViews(prisma: AdminRoutes['prisma'], players: readonly SandboxPlayer[]) {
  const emails = await emailsOfAccounts(
    prisma,
    players.map((player) => player.accountId),
  );
  return players.map((player) => ({
    id: player.id,
    username: player.username,
    display_name: player.displayName,
    status: player.status,
    account: { id: player.accountId, email: emails.get(player.accountId) ?? null },
    created_at: player.createdAt.toISOString(),
  }));
}

export const playerView = async (prisma: AdminRoutes['prisma'], player: SandboxPlayer) =>
  (await playerViews(prisma, [player]))[0]!;

export function playerRoutes({ prisma, guarded }: AdminRoutes): void {
  guarded('/players/:username', {
    GET: async (ctx) => answer(ctx, 200, await playerView(prisma, await playerAt(prisma, ctx))),
  });
  for (const [verb, change] of [
    ['disable', disablePlayer],
    ['enable', enablePlayer],
  ] as const) {
    guarded(`/players/:username/${verb}`, {
      POST: async (ctx) => {
        const reason = readReason(ctx);
        const found = await playerAt(prisma, ctx);
        const view = await playerView(prisma, found);
        const { player, changed } = await change(prisma, operatorOf(ctx), found, {
          account_email: view.account.email,
          reason,
        });
        answer(ctx, 200, { player: { ...view, status: player.status }, changed });
      },
    });
  }
}
