// The admin API's sandbox players (usernames are unique across the sandbox): show one, disable it,
// enable it. The players room makes each change with its audit record, only when something
// changed; nothing caches a player's status, so the change holds from the very next call.
import type { SandboxPlayer } from '@devplat/db';
import { disablePlayer, enablePlayer, playerWithUsername } from '@devplat/domain/players';
import type { Context } from 'koa';
import { type OwningAccount, withOwningAccount, withOwningAccounts } from '../owning-accounts.ts';
import { namedRowRoutes, type RowChange } from './named-rows.ts';
import { type AdminRoutes, operatorOf } from './routes.ts';

export const playerAt = (prisma: AdminRoutes['prisma'], ctx: Context): Promise<SandboxPlayer> =>
  playerWithUsername(prisma, ctx.params.username as string);

const playerShown = (player: SandboxPlayer, account: OwningAccount) => ({
  id: player.id,
  username: player.username,
  display_name: player.displayName,
  status: player.status,
  account,
  created_at: player.createdAt.toISOString(),
});

/** The players as every answer here shows them, their accounts' e-mails read in one statement. */
export const playerViews = (prisma: AdminRoutes['prisma'], players: readonly SandboxPlayer[]) =>
  withOwningAccounts(prisma, players, playerShown);

export const playerView = (prisma: AdminRoutes['prisma'], player: SandboxPlayer) =>
  withOwningAccount(prisma, player, playerShown);

export function playerRoutes(routes: AdminRoutes): void {
  const { prisma } = routes;
  const find = (ctx: Context) => playerAt(prisma, ctx);
  // The account's e-mail goes into the audit record, so the player is shown before the change.
  const changeBy =
    (change: typeof disablePlayer): RowChange<SandboxPlayer> =>
    async (ctx, found, reason) => {
      const view = await playerView(prisma, found);
      const { player, changed } = await change(prisma, operatorOf(ctx), found, {
        account_email: view.account.email,
        reason,
      });
      return { changed, shown: { ...view, status: player.status } };
    };
  namedRowRoutes(routes, '/players/:username', 'player', {
    find,
    show: async (ctx) => playerView(prisma, await find(ctx)),
    changes: { disable: changeBy(disablePlayer), enable: changeBy(enablePlayer) },
  });
}
