// admin list-consents: the consents of an app or of a player, newest granted first, as the
// operator checks them before or after ending some. Reads only: nothing is changed or recorded.
import type { PrismaClient } from '@devplat/db';
import { appWithClientId } from '@devplat/domain/apps';
import { listConsents } from '@devplat/domain/consents';
import { playerWithUsername } from '@devplat/domain/players';
import { type Command, type Invocation, stringOption, usageError } from './command.ts';
import { adminConfig, withDatabase } from './connections.ts';
import { pageOf, pageOptions, printPage, text, time } from './listing.ts';

/** Whose consents: the app (--app) or the player (--player), exactly one of them. */
async function ownerOf(prisma: PrismaClient, invocation: Invocation) {
  const clientId = text(invocation, 'app');
  const username = text(invocation, 'player');
  if ((clientId === undefined) === (username === undefined)) throw usageError('give --app or --player, one of them');
  if (clientId !== undefined) {
    // A deleted app's consents stay listed: they were ended when it was deleted.
    return { appId: (await appWithClientId(prisma, clientId, { deleted: 'found' })).id };
  }
  return { playerId: (await playerWithUsername(prisma, username as string)).id };
}

export const listConsentsCommand: Command = {
  path: ['list-consents'],
  summary: 'List the consents of an app or of a player, newest granted first',
  description: [
    `Prints the consents of the app (--app <client_id>) or of the sandbox player (--player <username>),
newest granted first, a page at a time (granted, consent id, client id, player, status, ended and
why), then "next page: --cursor <C>" or "last page". --status keeps only active or only revoked
ones. Exit 65 when no such app or player exists or a filter is refused.`,
  ],
  args: [],
  options: [
    stringOption('app', '<client_id>', "The app's consents"),
    stringOption('player', '<username>', "The player's consents"),
    stringOption('status', '<status>', 'active or revoked'),
    ...pageOptions,
  ],
  async run(invocation) {
    const status = text(invocation, 'status');
    await withDatabase(adminConfig(invocation.env), async (prisma) => {
      const owner = await ownerOf(prisma, invocation);
      const { items, nextCursor } = await listConsents(prisma, owner, {
        ...(status !== undefined && { status }),
        ...pageOf(invocation),
      });
      const rows = items.map((consent) => [
        time(consent.grantedAt),
        consent.id,
        consent.app.clientId,
        consent.player.username,
        consent.status,
        consent.revokedAt ? `${time(consent.revokedAt)} ${consent.revocationReason ?? ''}`.trim() : '',
      ]);
      const headings = ['GRANTED', 'CONSENT', 'CLIENT ID', 'PLAYER', 'STATUS', 'ENDED'];
      printPage(invocation.io, { headings, rows, none: 'no consents' }, nextCursor);
    });
  },
};
