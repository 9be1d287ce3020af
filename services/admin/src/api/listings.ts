// The admin API's listings: developer accounts and sandbox players found by the command's filters,
// and the consents of an app or of a player, each newest first, a page at a time (`next_cursor`).
// Reads only: nothing is changed or recorded. The same domain reads serve find-accounts,
// find-players and list-consents.
import type { Account } from '@devplat/db';
import { searchAccounts } from '@devplat/domain/accounts';
import { type ListedConsent, listConsents } from '@devplat/domain/consents';
import { searchPlayers } from '@devplat/domain/players';
import type { Context } from 'koa';
import { appAt } from './apps.ts';
import { playerAt, playerView } from './players.ts';
import { pageOf, queryText } from './request.ts';
import { type AdminRoutes, answer } from './routes.ts';

/** The query parameters named in `members` (parameter → search member), as given. */
function filtersOf(ctx: Context, members: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(members).flatMap(([name, member]) => {
      const value = queryText(ctx, name);
      return value === undefined ? [] : [[member, value]];
    }),
  );
}

const accountFilters = {
  email: 'email',
  email_contains: 'emailContains',
  status: 'status',
  since: 'createdSince',
  until: 'createdUntil',
};
const playerFilters = {
  username: 'username',
  username_prefix: 'usernamePrefix',
  account: 'accountEmail',
  status: 'status',
};
const paging = ['limit', 'cursor'];

const accountListed = (account: Account) => ({
  id: account.id,
  email: account.email,
  kind: account.kind,
  status: account.status,
  created_at: account.createdAt.toISOString(),
});

const consentView = (consent: ListedConsent) => ({
  id: consent.id,
  client_id: consent.app.clientId,
  player: { id: consent.playerId, username: consent.player.username },
  scopes: consent.scopes,
  status: consent.status,
  granted_at: consent.grantedAt.toISOString(),
  revoked_at: consent.revokedAt?.toISOString() ?? null,
  revocation_reason: consent.revocationReason,
});

export function listingRoutes({ prisma, guarded }: AdminRoutes): void {
  guarded(
    '/accounts',
    {
      GET: async (ctx) => {
        const { items, nextCursor } = await searchAccounts(prisma, {
          ...filtersOf(ctx, accountFilters),
          ...pageOf(ctx),
        });
        answer(ctx, 200, { data: items.map(accountListed), next_cursor: nextCursor });
      },
    },
    { query: [...Object.keys(accountFilters), ...paging] },
  );
  guarded(
    '/players',
    {
      GET: async (ctx) => {
        const { items, nextCursor } = await searchPlayers(prisma, { ...filtersOf(ctx, playerFilters), ...pageOf(ctx) });
        const data = await Promise.all(items.map((player) => playerView(prisma, player)));
        answer(ctx, 200, { data, next_cursor: nextCursor });
      },
    },
    { query: [...Object.keys(playerFilters), ...paging] },
  );
  for (const [path, owner] of [
    ['/apps/:client_id/consents', async (ctx: Context) => ({ appId: (await appAt(prisma, ctx)).id })],
    ['/players/:username/consents', async (ctx: Context) => ({ playerId: (await playerAt(prisma, ctx)).id })],
  ] as const) {
    guarded(
      path,
      {
        GET: async (ctx) => {
          const list = { ...filtersOf(ctx, { status: 'status' }), ...pageOf(ctx) };
          const { items, nextCursor } = await listConsents(prisma, await owner(ctx), list);
          answer(ctx, 200, { data: items.map(consentView), next_cursor: nextCursor });
        },
      },
      { query: ['status', ...paging] },
    );
  }
}
