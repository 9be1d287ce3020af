import { emailsOfAccounts, findAccount } from '@devplat/domain/accounts';
import { activeConsentsOfPlayer } from '@devplat/domain/consents';
import { playerNamed, searchPlayers } from '@devplat/domain/players';
import type { Command } from './command.ts';
import { adminConfig, withDatabase } from './connections.ts';
import { pageOf, pageOptions, printPage, table, text, time } from './listing.ts';

export const findPlayersCommand: Command = {
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
  args: [],
  options: [
    { name: 'username', type: 'string', value: '<username>', description: 'The whole username, in any case' },
    {
      name: 'username-prefix',
      type: 'string',
      value: '<text>',
      description: 'The beginning of the username, in any case',
    },
    {
      name: 'account',
      type: 'string',
      value: '<email>',
      description: 'The e-mail of the developer account they belong to',
    },
    { name: 'status', type: 'string', value: '<status>', description: 'active or disabled' },
    ...pageOptions,
  ],
  async run(invocation) {
    const username = text(invocation, 'username');
    const usernamePrefix = text(invocation, 'username-prefix');
    const accountEmail = text(invocation, 'account');
    const status = text(invocation, 'status');
    await withDatabase(adminConfig(invocation.env), async (prisma) => {
      const { items, nextCursor } = await searchPlayers(prisma, {
        ...(username !== undefined && { username }),
        ...(usernamePrefix !== undefined && { usernamePrefix }),
        ...(accountEmail !== undefined && { accountEmail }),
        ...(status !== undefined && { status }),
        ...pageOf(invocation),
      });
      const emails = await emailsOfAccounts(
        prisma,
        items.map((player) => player.accountId),
      );
      const rows = items.map((player) => [
        time(player.createdAt),
        player.username,
        player.status,
        emails.get(player.accountId) ?? player.accountId,
        player.id,
      ]);
      printPage(
        invocation.io,
        { headings: ['CREATED', 'USERNAME', 'STATUS', 'ACCOUNT', 'ID'], rows, none: 'no players match' },
        nextCursor,
      );
    });
  },
};

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
