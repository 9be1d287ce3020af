// The admin API's listings: apps, developer accounts and sandbox players found by the commands' filters,
// and the consents of an app or of a player, each newest first, a page at a time (`next_cursor`).
// Reads only: nothing is changed or recorded. The same domain reads serve find-accounts,
// find-players and list-consents.
import type { Account } from '@devplat/db';
import { searchAccounts } from '@devplat/domain/accounts';
import { searchApps } from '@devplat/domain/apps';
import { type ListedConsent, listConsents } from '@devplat/domain/consents';
import { searchPlayers } from '@devplat/domain/players';
import type { Context } from 'koa';
import { appAt, appViews } from './apps.ts';
import { playerAt, playerViews } from './players.ts';
import { filtersOf, pageOf } from './request.ts';
import { type AdminRoutes, answer } from './routes.ts';

const appFilters = {
  email: 'email',
  client_id: 'clientId',
  name: 'namePrefix',
  status: 'status',
  since: 'createdSince',
  until: 'createdUntil',
};
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
  guarded('/apps', {
    GET: async (ctx) => {
      const { items, nextCursor } = await searchApps(prisma, { ...filtersOf(ctx, appFilters), ...pageOf(ctx) });
      answer(ctx, 200, { data: await appViews(prisma, items), next_cursor: nextCursor });
    },
  });
  guarded('/accounts', {
    GET: async (ctx) => {
      const { items, nextCursor } = await searchAccounts(prisma, {
        ...filtersOf(ctx, accountFilters),
        ...pageOf(ctx),
      });
      answer(ctx, 200, { data: items.map(accountListed), next_cursor: nextCursor });
    },
  });
  guarded('/players', {
    GET: async (ctx) => {
      const { items, nextCursor } = await searchPlayers(prisma, { ...filtersOf(ctx, playerFilters), ...pageOf(ctx) });
      answer(ctx, 200, { data: await playerViews(prisma, items), next_cursor: nextCursor });
    },
  });
  for (const [path, owner] of [
    ['/apps/:client_id/consents', async (ctx: Context) => ({ appId: (await appAt(prisma, ctx)).id })],
    ['/players/:username/consents', async (ctx: Context) => ({ playerId: (await playerAt(prisma, ctx)).id })],
  ] as const) {
    guarded(path, {
      GET: async (ctx) => {
        const list = { ...filtersOf(ctx, { status: 'status' }), ...pageOf(ctx) };
        const { items, nextCursor } = await listConsents(prisma, await owner(ctx), list);
        answer(ctx, 200, { data: items.map(consentView), next_cursor: nextCursor });
      },
    });
  }
}
