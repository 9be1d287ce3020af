import { findAccount } from '@devplat/domain/accounts';
import { activeConsentsOfPlayer } from '@devplat/domain/consents';
import { playerNamed, searchPlayers } from '@devplat/domain/players';
import { type Command, stringOption } from './command.ts';
import { adminConfig, withDatabase } from './connections.ts';
import { filter, findCommand } from './find-command.ts';
import { table, time } from './listing.ts';
import { withOwningAccounts } from './owning-accounts.ts';

export const findPlayersCommand = findCommand({
  path: ['find-players'],
  summary: "Find sandbox players by username, their account's e-mail or status, newest first",
  description: [
    `Prints the sandbox players that match every filter given, newest first, a page at a time
(created, username, status, account e-mail, id), then "next page: --cursor <C>" or "last page".
--username is the whole username in any case; --username-prefix its beginning in any case (_ and %
are only themselves); --account the e-mail of the developer account they belong to. Exit 65 when a
filter is refused (an unknown status, a cursor this listing did not give) or --account names no
account.`,
  ],
  filters: [
    filter('username', stringOption('username', '<username>', 'The whole username, in any case')),
    filter('usernamePrefix', stringOption('username-prefix', '<text>', 'The beginning of the username, in any case')),
    filter('accountEmail', stringOption('account', '<email>', 'The e-mail of the developer account they belong to')),
    filter('status', stringOption('status', '<status>', 'active or disabled')),
  ],
  search: searchPlayers,
  headings: ['CREATED', 'USERNAME', 'STATUS', 'ACCOUNT', 'ID'],
  rows: (prisma, players) =>
    withOwningAccounts(prisma, players, (player, account) => [
      time(player.createdAt),
      player.username,
      player.status,
      account.email ?? account.id,
      player.id,
    ]),
  none: 'no players match',
});

export const showPlayerCommand: Command = {
  path: ['show-player'],
  summary: 'Show one sandbox player: status, account, active consents',
  description: [
    `Prints the sandbox player with this username (in any case) or id: username, id, display name,
status, when it was created, the developer account it belongs to (e-mail and id), and how many
consents it holds that are active. Exit 65 when no player has it.`,
  ],
  args: [{ name: 'player' }],
  options: [],
  async run({ args, env, io }) {
    await withDatabase(adminConfig(env), async (prisma) => {
      const player = await playerNamed(prisma, args.player as string);
      const account = await findAccount(prisma, player.accountId);
      const consents = (await activeConsentsOfPlayer(prisma, player.id)).length;
      io.out(
        table(
          ['player', player.username],
          [
            ['id', player.id],
            ['name', player.displayName ?? '-'],
            ['status', player.status],
            ['created', time(player.createdAt)],
            ['account', `${account?.email ?? '-'} (${player.accountId})`],
            ['consents', `${consents} active`],
          ],
        ),
      );
    });
  },
};
