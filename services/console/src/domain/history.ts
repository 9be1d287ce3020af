// The console's door to a developer's history of one of their apps and of their account (the audit
// room's, @devplat/domain/audit: what a developer may see of it). It reads the page query and finds
// the developer's app (another developer's app answers as one that does not exist).
import type { HistoryEntryView } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import type { AppWithSecrets } from '@devplat/domain/apps';
import { type DeveloperHistoryPage, historyOfAccount, historyOfApp } from '@devplat/domain/audit';
import type { DeveloperApps } from './apps.ts';
import { pageQuery } from './rules.ts';

export type { HistoryEntryView };

/** A page of the history, with the app it is of (its page's title). */
export interface AppHistoryPage extends DeveloperHistoryPage {
  app: AppWithSecrets;
}

/** A page of the account's history. */
export type AccountHistoryPage = DeveloperHistoryPage;

export function appHistories(prisma: PrismaClient, { find }: Pick<DeveloperApps, 'find'>) {
  return {
    /**
     * A page of the app's history, newest first: `query` is the request's (limit: 1 to 200, 50 by
     * default; cursor: the next_cursor of the page before). Another developer's app answers as one
     * that does not exist; a cursor this listing did not give is refused.
     */
    async list(
      accountId: string,
      clientId: string,
      query: Readonly<Record<string, unknown>> = {},
    ): Promise<AppHistoryPage> {
      const asked = pageQuery(query);
      const app = await find(accountId, clientId);
      return { app, ...(await historyOfApp(prisma, app.id, asked)) };
    },
  };
}
export type AppHistories = ReturnType<typeof appHistories>;

export function accountHistories(prisma: PrismaClient) {
  return {
    /**
     * A page of the account's history, newest first, under the same query rules as an app's: the
     * records whose target is the account (registered, suspended and reactivated by the platform,
     * API keys created and revoked).
     */
    list: (accountId: string, query: Readonly<Record<string, unknown>> = {}): Promise<AccountHistoryPage> =>
      historyOfAccount(prisma, accountId, pageQuery(query)),
  };
}
export type AccountHistories = ReturnType<typeof accountHistories>;
