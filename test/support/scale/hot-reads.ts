// The reads that must stay index lookups however big the platform grows: those on the token and
// api paths, and the console's and the admin API's lists and searches. Each runs the platform's
// own function, so what is checked is the SQL the platform sends (Prisma's, or the hot paths'
// own), never a copy of it.
import { findUsableApp } from '@devplat/app-directory';
import type { PrismaClient, Query } from '@devplat/db';
import { emailsOfAccounts, findAccount, findAccountByEmail, searchAccounts } from '@devplat/domain/accounts';
import { appCountOfAccount, appDetails, appsOfAccount, findAppByClientId, searchApps } from '@devplat/domain/apps';
import { appHistory, exportAudit, queryAudit } from '@devplat/domain/audit';
import {
  activeConsentCount,
  activeConsentIdsOfGrants,
  activeConsentsOfPlayer,
  activeConsentsWithApp,
  consentActivity,
  listConsents,
} from '@devplat/domain/consents';
import { deliveriesPerDay, eventsOfAppSince, listDeliveries } from '@devplat/domain/events';
import {
  activePlayers,
  findPlayer,
  findPlayerByUsername,
  playersOfAccount,
  searchPlayers,
} from '@devplat/domain/players';
import { countriesWithReviewedCities, reviewedCities } from '@devplat/domain/registry';
import type { AccessToken } from '../../../services/api/src/bearer.ts';
import { livenessAndProfileCheck } from '../../../services/api/src/liveness.ts';
import type { Subjects } from './subjects.ts';

export interface HotRead {
  name: string;
  /** Where it runs: on every token or API call, on a player's sign-in and consent, or in a listing. */
  path: 'token' | 'api' | 'auth' | 'console' | 'admin';
  run(db: { prisma: PrismaClient; query: Query }, subjects: Subjects): Promise<unknown>;
}

const daysAgo = (days: number) => new Date(Date.now() - days * 24 * 3600_000);

/** Reads a listing's first page, then the page after it (keyset paging: a different statement). */
async function twoPages<T>(read: (cursor?: string) => Promise<{ nextCursor: string | null; items: T[] }>) {
  const first = await read();
  return first.nextCursor ? read(first.nextCursor) : first;
}

export const hotReads: readonly HotRead[] = [
  // The token endpoint (on a cache miss of the app directory) and the consent screen.
  {
    name: 'app by client id, with its active secrets',
    path: 'token',
    run: ({ prisma }, s) => findUsableApp(prisma, s.popularApp.clientId),
  },
  {
    name: 'liveness and profile of a user token (app, secret, revoked token ids, consent, player)',
    path: 'api',
    run: ({ query }, s) => {
      const token: AccessToken = {
        jti: s.revokedJti ?? 'no-such-token',
        sub: 'ps_x',
        clientId: s.consent.clientId,
        scopes: new Set(),
        expiresAt: Date.now() + 300_000,
        secretId: s.consent.secretId,
        consentId: s.consent.id,
      };
      // A revoked token is refused after the statement ran: the statement is what is read here.
      return livenessAndProfileCheck(query)(token).catch(() => null);
    },
  },
  { name: 'cities listing', path: 'api', run: ({ prisma }) => reviewedCities(prisma) },
  { name: 'regions listing', path: 'api', run: ({ prisma }) => countriesWithReviewedCities(prisma, 101) },
  {
    name: 'active consent of a grant (each refresh)',
    path: 'token',
    run: ({ query }, s) => activeConsentIdsOfGrants(query, [s.consent.grantId]),
  },
  {
    name: 'player by username (sign-in)',
    path: 'auth',
    run: ({ prisma }, s) => findPlayerByUsername(prisma, s.busyPlayer.username),
  },
  {
    name: 'signed-in player still active (every player client page)',
    path: 'auth',
    run: ({ query }, s) => activePlayers(query, [s.busyPlayer.id]),
  },
  {
    name: 'consents of a player with an app (connected apps, remove access)',
    path: 'auth',
    run: ({ prisma }, s) => activeConsentsWithApp(prisma, s.consent.playerId, s.consent.clientId),
  },
  {
    name: "a player's active consents (connected apps)",
    path: 'auth',
    run: ({ prisma }, s) => activeConsentsOfPlayer(prisma, s.busyPlayer.id),
  },

  {
    name: 'account by e-mail (console sign-in)',
    path: 'console',
    run: ({ prisma }, s) => findAccountByEmail(prisma, s.mostApps.email),
  },
  {
    name: "an account's apps with their secrets (GET /api/apps)",
    path: 'console',
    run: ({ prisma }, s) => appsOfAccount(prisma, s.mostApps.id),
  },
  {
    name: "an account's players, two pages (GET /api/sandbox-players)",
    path: 'console',
    run: ({ prisma }, s) => twoPages((cursor) => playersOfAccount(prisma, s.mostPlayers.id, { cursor })),
  },
  {
    name: 'app by client id (every app page)',
    path: 'console',
    run: ({ prisma }, s) => findAppByClientId(prisma, s.historicApp.clientId),
  },
  {
    name: "an app's history, two pages",
    path: 'console',
    run: ({ prisma }, s) => twoPages((cursor) => appHistory(prisma, s.historicApp.id, { limit: 50, cursor })),
  },
  {
    name: 'e-mails of the accounts on a page',
    path: 'console',
    run: ({ prisma }, s) => emailsOfAccounts(prisma, [s.mostApps.id, s.typical.id]),
  },
  { name: "an app's deliveries", path: 'console', run: ({ prisma }, s) => listDeliveries(prisma, s.popularApp.id) },
  {
    name: "an app's failed deliveries",
    path: 'console',
    run: ({ prisma }, s) => listDeliveries(prisma, s.popularApp.id, 'failed'),
  },
  {
    name: "an app's consents per day (app page)",
    path: 'console',
    run: ({ prisma }, s) => consentActivity(prisma, s.popularApp.id, daysAgo(30)),
  },
  {
    name: "an app's deliveries per day",
    path: 'console',
    run: ({ prisma }, s) => deliveriesPerDay(prisma, s.popularApp.id, daysAgo(30)),
  },
  {
    name: "an app's active consent count",
    path: 'console',
    run: ({ prisma }, s) => activeConsentCount(prisma, s.popularApp.id),
  },
  {
    name: "an app's events since (devplat listen)",
    path: 'console',
    run: ({ prisma }, s) => eventsOfAppSince(prisma, s.popularApp.id, daysAgo(1), [], 100),
  },

  {
    name: 'apps, newest first, two pages',
    path: 'admin',
    run: ({ prisma }) => twoPages((cursor) => searchApps(prisma, { cursor })),
  },
  {
    name: 'apps by status',
    path: 'admin',
    run: ({ prisma }) => twoPages((cursor) => searchApps(prisma, { status: 'suspended', cursor })),
  },
  {
    name: 'apps by developer e-mail',
    path: 'admin',
    run: ({ prisma }, s) => searchApps(prisma, { email: s.mostApps.email }),
  },
  {
    name: 'apps by client id',
    path: 'admin',
    run: ({ prisma }, s) => searchApps(prisma, { clientId: s.popularApp.clientId }),
  },
  { name: 'apps by name prefix', path: 'admin', run: ({ prisma }) => searchApps(prisma, { namePrefix: 'Atl' }) },
  {
    name: 'apps created in a week',
    path: 'admin',
    run: ({ prisma }) => searchApps(prisma, { createdSince: daysAgo(14), createdUntil: daysAgo(7) }),
  },
  { name: 'one app in detail', path: 'admin', run: ({ prisma }, s) => appDetails(prisma, s.popularApp.clientId) },
  { name: "an account's app count", path: 'admin', run: ({ prisma }, s) => appCountOfAccount(prisma, s.mostApps.id) },
  { name: 'account by id', path: 'admin', run: ({ prisma }, s) => findAccount(prisma, s.typical.id) },
  {
    name: 'accounts, newest first, two pages',
    path: 'admin',
    run: ({ prisma }) => twoPages((cursor) => searchAccounts(prisma, { cursor })),
  },
  {
    name: 'accounts by e-mail',
    path: 'admin',
    run: ({ prisma }, s) => searchAccounts(prisma, { email: s.typical.email }),
  },
  {
    name: 'accounts by part of the e-mail',
    path: 'admin',
    run: ({ prisma }) => searchAccounts(prisma, { emailContains: 'hopper' }),
  },
  { name: 'accounts by status', path: 'admin', run: ({ prisma }) => searchAccounts(prisma, { status: 'suspended' }) },
  {
    name: 'players, newest first, two pages',
    path: 'admin',
    run: ({ prisma }) => twoPages((cursor) => searchPlayers(prisma, { cursor })),
  },
  {
    name: 'players by username',
    path: 'admin',
    run: ({ prisma }, s) => searchPlayers(prisma, { username: s.busyPlayer.username }),
  },
  {
    name: 'players by a common username prefix, two pages',
    path: 'admin',
    run: ({ prisma }) => twoPages((cursor) => searchPlayers(prisma, { usernamePrefix: 'ada-1', cursor })),
  },
  {
    name: 'players by a rare username prefix',
    path: 'admin',
    run: ({ prisma }) => searchPlayers(prisma, { usernamePrefix: 'ada-1234' }),
  },
  {
    name: "players by their developer's e-mail",
    path: 'admin',
    run: ({ prisma }, s) => twoPages((cursor) => searchPlayers(prisma, { accountEmail: s.mostPlayers.email, cursor })),
  },
  { name: 'players by status', path: 'admin', run: ({ prisma }) => searchPlayers(prisma, { status: 'disabled' }) },
  { name: 'player by id', path: 'admin', run: ({ prisma }, s) => findPlayer(prisma, s.busyPlayer.id) },
  {
    name: "an app's consents, two pages",
    path: 'admin',
    run: ({ prisma }, s) => twoPages((cursor) => listConsents(prisma, { appId: s.popularApp.id }, { cursor })),
  },
  {
    name: "an app's active consents",
    path: 'admin',
    run: ({ prisma }, s) => listConsents(prisma, { appId: s.popularApp.id }, { status: 'active' }),
  },
  {
    name: "a player's consents",
    path: 'admin',
    run: ({ prisma }, s) => listConsents(prisma, { playerId: s.busyPlayer.id }, {}),
  },
  {
    name: 'audit log, newest first, two pages',
    path: 'admin',
    run: ({ prisma }) => twoPages((cursor) => queryAudit(prisma, { cursor })),
  },
  {
    name: 'audit log by actor (an account, and an operator of that name)',
    path: 'admin',
    run: ({ prisma }, s) =>
      queryAudit(prisma, {
        actors: [
          { type: 'operator', id: s.historicApp.accountId },
          { type: 'account', id: s.historicApp.accountId },
        ],
      }),
  },
  {
    name: 'audit log by operator',
    path: 'admin',
    run: ({ prisma }) => queryAudit(prisma, { actors: [{ type: 'operator', id: 'grace.ops' }] }),
  },
  {
    name: 'audit log by action',
    path: 'admin',
    run: ({ prisma }) => queryAudit(prisma, { action: 'account.suspend' }),
  },
  { name: 'audit log by action prefix', path: 'admin', run: ({ prisma }) => queryAudit(prisma, { action: 'secret.' }) },
  {
    name: 'audit log by target',
    path: 'admin',
    run: ({ prisma }, s) => queryAudit(prisma, { target: { type: 'app', id: s.historicApp.id } }),
  },
  {
    name: 'audit log by target type',
    path: 'admin',
    run: ({ prisma }) => queryAudit(prisma, { target: { type: 'consent' } }),
  },
  {
    name: 'audit log of a day',
    path: 'admin',
    run: ({ prisma }) => queryAudit(prisma, { since: daysAgo(2), until: daysAgo(1) }),
  },
  {
    name: 'audit export of a day, first batch',
    path: 'admin',
    run: async ({ prisma }) => (await exportAudit(prisma, { since: daysAgo(2), until: daysAgo(1) }).next()).value,
  },
];
