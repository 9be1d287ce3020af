// admin find-apps / show-app: apps across every developer, as the operator looks them up before
// suspending one or ending its consents. Reads only: nothing is changed, and nothing is audited.

import { appDetails, searchApps } from '@devplat/domain/apps';
import type { TokenUsage } from '@devplat/usage';
import { type Command, stringOption } from './command.ts';
import { adminConfig, withDatabase, withUsage } from './connections.ts';
import { createdRangeFilters, filter, findCommand } from './find-command.ts';
import { countsByStatus, table, time } from './listing.ts';
import { tokensLastDayOrNull } from './usage.ts';

export const findAppsCommand = findCommand({
  path: ['find-apps'],
  summary: 'Find apps by developer e-mail, client id, name, status or creation time, newest first',
  description: [
    `Prints the apps (of every developer, deleted ones too) that match every filter given, newest
first, a page at a time (created, client id, status, name), then "next page: --cursor <C>" or
"last page". --email is the developer's whole address and --client-id the whole client id, both in
any case; --name is the start of the app's name, in any case (_ and % are only themselves).
--since and --until bound when the app was created: ISO 8601 with a zone or a date (midnight UTC),
since inclusive, until exclusive. Exit 65 when a filter is refused.`,
  ],
  filters: [
    filter('email', stringOption('email', '<address>', "The developer's whole e-mail address, in any case")),
    filter('clientId', stringOption('client-id', '<client_id>', 'The whole client id, in any case')),
    filter('namePrefix', stringOption('name', '<text>', "The start of the app's name, in any case")),
    filter('status', stringOption('status', '<status>', 'active, disabled, suspended or deleted')),
    ...createdRangeFilters,
  ],
  search: searchApps,
  headings: ['CREATED', 'CLIENT ID', 'STATUS', 'NAME'],
  rows: (_prisma, apps) => apps.map((app) => [time(app.createdAt), app.clientId, app.status, app.name]),
  none: 'no apps match',
});

export const showAppCommand: Command = {
  path: ['show-app'],
  summary: 'Show one app: its developer, scopes, redirect URIs, webhook, use, secrets and consents',
  description: [
    `Prints the app with this client id (in any case), deleted ones too: name, status, developer,
when it was created, its scopes and redirect URIs, its webhook URL and its deliveries of the last
24 hours by status, the access tokens it got in the current UTC hour and the 23 before it (from
REDIS_URL's counters, which the auth service writes every few seconds; unknown without REDIS_URL),
its secrets (id, status, created, revoked, last used: about a minute behind; never a hash) and how
many players have an active consent. Exit 65 when no app has the client id.`,
  ],
  args: [{ name: 'client_id' }],
  options: [],
  async run({ args, env, io }) {
    const config = adminConfig(env);
    await withDatabase(config, async (prisma) => {
      const { app, developerEmail, secrets, activeConsents, deliveriesLastDay } = await appDetails(
        prisma,
        args.client_id as string,
      );
      const tokens = await withUsage(config, (usage) => tokensLastDay(usage, app.id));
      const secretLines = secrets.map(
        (secret) =>
          `${secret.id} ${secret.status} created ${time(secret.createdAt)}` +
          (secret.revokedAt ? ` revoked ${time(secret.revokedAt)}` : '') +
          ` last used ${secret.lastUsedAt ? time(secret.lastUsedAt) : '(none recorded)'}`,
      );
      io.out(
        table(
          ['app', app.clientId],
          [
            ['name', app.name],
            ['status', app.status],
            ['developer', developerEmail],
            ['created', time(app.createdAt)],
            ['scopes', app.scopes.join(' ') || '(none)'],
            ['redirect uris', app.redirectUris.join(' ') || '(none)'],
            ['webhook url', app.webhookUrl ?? '(none)'],
            ['deliveries 24 h', countsByStatus(deliveriesLastDay)],
            ['tokens 24 h', tokens],
            ['active consents', String(activeConsents)],
            ...secretLines.map((line, index) => [index === 0 ? 'secrets' : '', line]),
          ],
        ),
      );
    });
  },
};

/** The app's access tokens of the last 24 hours, in words. */
async function tokensLastDay(usage: TokenUsage | null, appId: string): Promise<string> {
  if (!usage) return 'unknown (no REDIS_URL)';
  const tokens = await tokensLastDayOrNull(usage, appId);
  return tokens === null ? 'unknown (Redis did not answer)' : String(tokens);
}
