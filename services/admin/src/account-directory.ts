// admin find-accounts / show-account: developer accounts as the operator looks them up, before
// suspending one or answering a ticket. Reads only: nothing is changed, and nothing is audited.
import { accountNamed, searchAccounts } from '@devplat/domain/accounts';
import { appCountsOfAccount } from '@devplat/domain/apps';
import { playerCountsOfAccount } from '@devplat/domain/players';
import { type Command, stringOption } from './command.ts';
import { adminConfig, withDatabase } from './connections.ts';
import { createdRangeFilters, filter, findCommand } from './find-command.ts';
import { countsByStatus, table, time } from './listing.ts';

export const findAccountsCommand = findCommand({
  path: ['find-accounts'],
  summary: 'Find developer accounts by e-mail, status or creation time, newest first',
  description: [
    `Prints the developer accounts that match every filter given, newest first, a page at a time
(created, e-mail, status, kind, id), then "next page: --cursor <C>" or "last page". --email is the
whole address in any case; --email-contains a part of it in any case (a name, or a domain such as
@example.com); _ and % are only themselves. --since and --until bound when the account was created:
ISO 8601 with a zone or a date (midnight UTC), since inclusive, until exclusive. Exit 65 when a
filter is refused (an unknown status, a bad time, a cursor this listing did not give).`,
  ],
  filters: [
    filter('email', stringOption('email', '<address>', 'The whole e-mail address, in any case')),
    filter('emailContains', stringOption('email-contains', '<text>', 'A part of the e-mail address, in any case')),
    filter('status', stringOption('status', '<status>', 'active or suspended')),
    ...createdRangeFilters,
  ],
  search: searchAccounts,
  headings: ['CREATED', 'EMAIL', 'STATUS', 'KIND', 'ID'],
  rows: (_prisma, accounts) =>
    accounts.map((account) => [time(account.createdAt), account.email, account.status, account.kind, account.id]),
  none: 'no accounts match',
});

export const showAccountCommand: Command = {
  path: ['show-account'],
  summary: 'Show one developer account: status, creation, its apps and players',
  description: [
    `Prints the developer account with this e-mail (in any case) or id: its e-mail, id, name, kind,
status (and since when it is suspended), when it was created, how many apps it has by status
(deleted apps not counted) and how many sandbox players by status. Exit 65 when no account has it.`,
  ],
  args: [{ name: 'account' }],
  options: [],
  async run({ args, env, io }) {
    await withDatabase(adminConfig(env), async (prisma) => {
      const account = await accountNamed(prisma, args.account as string);
      const [apps, players] = await Promise.all([
        appCountsOfAccount(prisma, account.id),
        playerCountsOfAccount(prisma, account.id),
      ]);
      const suspended =
        account.status === 'suspended' && account.suspendedAt ? ` since ${time(account.suspendedAt)}` : '';
      io.out(
        table(
          ['account', account.email],
          [
            ['id', account.id],
            ['name', account.displayName],
            ['kind', account.kind],
            ['status', `${account.status}${suspended}`],
            ['created', time(account.createdAt)],
            ['apps', countsByStatus(apps)],
            ['players', countsByStatus(players)],
          ],
        ),
      );
    });
  },
};
