// What a developer may see of the audit log: the history of one of their apps and of their account,
// newest first, a page at a time (appHistory, and the records whose target is the account:
// registration, the platform's suspension and reactivation, API keys made and revoked). Who is the
// developer, by their account's e-mail, or "the platform" for an operator, whose name stays the
// platform's. A summary names only what the console shows anyway: the app's secret and delivery
// ids, the members an edit changed, counts, an API key's name and id; never an operator's reason, a
// player or another internal id.
import type { HistoryActorView, HistoryEntryView } from '@devplat/contract';
import type { AuditRecord, PrismaClient } from '@devplat/db';
import { emailsOfAccounts } from '../accounts/store.ts';
import { appOfDeveloper } from '../apps/developers.ts';
import type { AppWithSecrets } from '../apps/store.ts';
import { appHistory, queryAudit } from '../audit/query.ts';
import { pageQuery } from '../input.ts';
import type { Page } from '../paging.ts';

/** A page of a developer's history, newest first. */
export interface DeveloperHistoryPage {
  entries: HistoryEntryView[];
  /** Gives the older entries; null when there are none. */
  nextCursor: string | null;
}

/** Which page: at most `limit` entries (1 to 200, 50 by default) after `cursor` (the page before's). */
export interface HistoryPageAsked {
  limit?: number;
  cursor?: string;
}

type Details = Record<string, unknown>;

/** The members an edit may change, in the order the API lists them. */
const memberOrder = ['name', 'redirect_uris', 'scopes', 'webhook_url'];

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const count = (value: unknown) => (typeof value === 'number' && Number.isInteger(value) ? value : 0);
const consentsEnded = (details: Details, by = '') =>
  count(details.consents_ended) > 0 ? `${plural(count(details.consents_ended), 'consent', 'consents')} ended${by}` : '';
const withEnded = (text: string, details: Details) => {
  const ended = consentsEnded(details);
  return ended ? `${text}; ${ended}` : text;
};

/** The short sentence of one record, from its action, target and details. */
function summaryOf({ action, targetId, details: stored }: AuditRecord): string {
  const details = (typeof stored === 'object' && stored !== null && !Array.isArray(stored) ? stored : {}) as Details;
  switch (action) {
    case 'app.create':
      return 'App created';
    case 'app.edit': {
      // In the API's order (the stored JSON keeps no order of its own).
      const changed = Object.keys((details.changed ?? {}) as Details).toSorted(
        (a, b) => memberOrder.indexOf(a) - memberOrder.indexOf(b) || a.localeCompare(b),
      );
      return withEnded(changed.length ? `Edited: ${changed.join(', ')}` : 'Edited: nothing changed', details);
    }
    case 'app.disable':
      return 'Disabled';
    case 'app.enable':
      return 'Enabled';
    case 'app.delete':
      return withEnded('Deleted', details);
    case 'app.suspend':
      return 'Suspended by the platform';
    case 'app.unsuspend':
      return details.status === 'disabled'
        ? 'Suspension lifted by the platform: disabled, as you had left it'
        : 'Suspension lifted by the platform: active again';
    case 'secret.create':
      return `Secret ${targetId} created`;
    case 'secret.revoke':
      return `Secret ${targetId} revoked`;
    case 'webhook.test':
      return typeof details.delivery_id === 'string'
        ? `Test webhook sent (delivery ${details.delivery_id})`
        : 'Test event sent to devplat listen';
    case 'webhook.replay':
      return typeof details.new_delivery_id === 'string'
        ? `Delivery ${targetId} replayed as ${details.new_delivery_id}`
        : `Delivery ${targetId} replayed`;
    case 'consent.trigger':
      return `Triggered ${details.event} for sandbox player ${details.username}`;
    case 'consent.end':
      return '1 consent ended by the platform';
    case 'app.consents_end':
      return consentsEnded(details, ' by the platform') || 'Consents ended by the platform';
    case 'account.register':
      return 'Account registered';
    case 'account.suspend':
      return 'Account suspended by the platform';
    case 'account.reactivate':
      return 'Suspension lifted by the platform';
    case 'api_key.create': {
      const expires = typeof details.expires_at === 'string' ? `, expires ${details.expires_at.slice(0, 10)}` : '';
      return `API key ${JSON.stringify(details.name)} created (${details.scope}${expires}; id ${details.key_id})`;
    }
    case 'api_key.revoke':
      return `API key ${JSON.stringify(details.name)} revoked (id ${details.key_id})`;
    case 'player.consents_end':
      // Never the player: the developer sees how many of this app's consents a player's end took.
      return (
        consentsEnded(details, " by the platform (a player's, with every app)") || 'Consents ended by the platform'
      );
    default:
      return action;
  }
}

/** The entries of records, newest first, each actor as the developer sees them. */
async function entriesOf(
  prisma: PrismaClient,
  { items, nextCursor }: Page<AuditRecord>,
): Promise<DeveloperHistoryPage> {
  const accountIds = items.flatMap((record) =>
    record.actorType === 'account' && record.actorId ? [record.actorId] : [],
  );
  const emails = await emailsOfAccounts(prisma, accountIds);
  // Accounts are never deleted, so every account found has its e-mail.
  const actor = (record: AuditRecord): HistoryActorView =>
    record.actorType === 'operator'
      ? { type: 'platform' }
      : { type: 'developer', email: emails.get(record.actorId ?? '') ?? 'unknown' };
  const entries = items.map((record) => ({
    at: record.createdAt.toISOString(),
    action: record.action,
    actor: actor(record),
    summary: summaryOf(record),
    request_id: record.requestId,
  }));
  return { entries, nextCursor };
}

/** A page of the app's history (a cursor this listing did not give is refused). */
export async function historyOfApp(
  prisma: PrismaClient,
  appId: string,
  asked: HistoryPageAsked,
): Promise<DeveloperHistoryPage> {
  return entriesOf(prisma, await appHistory(prisma, appId, asked));
}

/** A page of the account's history, under the same rules as an app's. */
export async function historyOfAccount(
  prisma: PrismaClient,
  accountId: string,
  asked: HistoryPageAsked,
): Promise<DeveloperHistoryPage> {
  return entriesOf(prisma, await queryAudit(prisma, { target: { type: 'account', id: accountId }, ...asked }));
}

/** A page of the history, with the app it is of (its page's title). */
export interface AppHistoryPage extends DeveloperHistoryPage {
  app: AppWithSecrets;
}

/** A page of the account's history. */
export type AccountHistoryPage = DeveloperHistoryPage;

/** The console's reads of a developer's histories: they read the page query. */
export function developerHistories(prisma: PrismaClient) {
  return {
    /**
     * A page of the app's history, newest first: `query` is the request's (limit: 1 to 200, 50 by
     * default; cursor: the next_cursor of the page before). Another developer's app answers as one
     * that does not exist; a cursor this listing did not give is refused.
     */
    async ofApp(
      accountId: string,
      clientId: string,
      query: Readonly<Record<string, unknown>> = {},
    ): Promise<AppHistoryPage> {
      const asked = pageQuery(query);
      const app = await appOfDeveloper(prisma, accountId, clientId);
      return { app, ...(await historyOfApp(prisma, app.id, asked)) };
    },

    /**
     * A page of the account's history, newest first, under the same query rules as an app's: the
     * records whose target is the account (registered, suspended and reactivated by the platform,
     * API keys created and revoked).
     */
    ofAccount: (accountId: string, query: Readonly<Record<string, unknown>> = {}): Promise<AccountHistoryPage> =>
      historyOfAccount(prisma, accountId, pageQuery(query)),
  };
}
