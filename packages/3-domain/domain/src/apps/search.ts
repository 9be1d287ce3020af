// Finding apps, for the operator: by the developer's e-mail, the client id, the start of the name,
// status and when they were created, newest first, a page at a time; and one app as the operator
// looks at it before stopping it.
import { type App, AppStatus, type ClientSecret } from '@devplat/db';
import { findAccount, findAccountByEmail } from '../accounts/store.ts';
import { activeConsentCount } from '../consents/store.ts';
import type { Db } from '../db.ts';
import { deliveriesPerDay } from '../events/store.ts';
import { likeLiteral, oneOf, type Page, page, searchText, timeRange } from '../paging.ts';
import { Refusal } from '../refusal.ts';
import { type AppSelection, appsNewestFirst, findAppByClientId } from './store.ts';

export interface AppSearch {
  /** The developer's whole e-mail address, in any case. */
  email?: string;
  /** The whole client id, in any case. */
  clientId?: string;
  /** The start of the app's name, in any case. */
  namePrefix?: string;
  /** active, disabled, suspended or deleted. */
  status?: string;
  /** Created from this instant (inclusive): ISO 8601 with a zone, or a date (midnight UTC). */
  createdSince?: string | Date;
  /** Created before this instant (exclusive). */
  createdUntil?: string | Date;
  /** Apps per page: 1 to 200, default 50. */
  limit?: number;
  /** The nextCursor of the page before. */
  cursor?: string;
}

const empty: Page<App> = { items: [], nextCursor: null };

/** One page of the apps found, newest first; an e-mail no account has finds none. */
export async function searchApps(db: Db, search: AppSearch): Promise<Page<App>> {
  const { email, clientId, namePrefix, status, createdSince, createdUntil } = search;
  const selection: AppSelection = {};
  if (email !== undefined) {
    // The console keeps addresses in lower case.
    const account = await findAccountByEmail(db, searchText('email', email, 320).toLowerCase());
    if (!account) return empty;
    selection.accountId = account.id;
  }
  // Client ids are svc_ and lower-case letters and digits.
  if (clientId !== undefined) selection.clientId = searchText('client id', clientId, 30).toLowerCase();
  if (namePrefix !== undefined) selection.namePrefix = likeLiteral(searchText('name prefix', namePrefix, 100));
  if (status !== undefined) selection.status = oneOf('status', status, Object.values(AppStatus));
  const createdAt = timeRange({ since: 'created since', until: 'created until' }, createdSince, createdUntil);
  if (createdAt) selection.createdAt = createdAt;
  return page('apps', search, (after, take) => appsNewestFirst(db, selection, after, take));
}

/** An app as the operator sees it: the app, its developer, its secrets' metadata, its consents. */
export interface AppDetails {
  app: App;
  developerEmail: string;
  /**
   * Metadata only: never a hash. lastUsedAt is when the secret last authenticated a call, as auth
   * records it (at most about a minute behind); null when it has not since that was recorded.
   */
  secrets: Pick<ClientSecret, 'id' | 'status' | 'createdAt' | 'revokedAt' | 'lastUsedAt'>[];
  activeConsents: number;
  /** The app's webhook deliveries made in the last 24 hours, by their status now. */
  deliveriesLastDay: Record<string, number>;
}

/** The app with this client id (in any case), deleted ones too; APP_NOT_FOUND when there is none. */
export async function appDetails(db: Db, clientId: string): Promise<AppDetails> {
  const found = await findAppByClientId(db, searchText('client id', clientId, 30).toLowerCase());
  if (!found) throw new Refusal('APP_NOT_FOUND', `no app has the client id ${clientId}`);
  const { secrets, ...app } = found;
  const since = new Date(Date.now() - 24 * 3600_000);
  const [account, activeConsents, deliveries] = await Promise.all([
    findAccount(db, app.accountId),
    activeConsentCount(db, app.id),
    deliveriesPerDay(db, app.id, since),
  ]);
  const deliveriesLastDay: Record<string, number> = {};
  for (const row of deliveries) deliveriesLastDay[row.what] = (deliveriesLastDay[row.what] ?? 0) + row.n;
  return {
    app,
    developerEmail: account?.email ?? '',
    secrets: secrets
      .toSorted((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .map(({ id, status, createdAt, revokedAt, lastUsedAt }) => ({ id, status, createdAt, revokedAt, lastUsedAt })),
    activeConsents,
    deliveriesLastDay,
  };
}
