// admin disable-player / enable-player: a sandbox player is refused, or admitted again. Nothing
// caches a player's status: the api's per-call liveness statement (services/api/src/liveness.ts)
// and the player client's session check (services/auth/src/player/client.ts) read it from
// PostgreSQL on every request, so the change takes effect on the very next call with no
// invalidation. The audit record commits with the change, only when something changed.
import type { PlayerStatus } from '@devplat/db';
import { disablePlayer, enablePlayer, findPlayerOfAccountEmail } from '@devplat/domain/players';
import { refuse } from '@devplat/domain/refusal';
import {
  auditedCommand,
  type Command,
  type CommandText,
  type OptionSpec,
  required,
  stringOption,
  usageError,
} from './command.ts';
import { adminConfig, withDatabase } from './connections.ts';

interface PlayerCommand extends CommandText {
  /** The players room's change (disablePlayer, enablePlayer). */
  change: typeof disablePlayer;
  to: PlayerStatus;
}

const accountOption: OptionSpec[] = [
  required(stringOption('account', '<email>', 'The e-mail of the developer account the player belongs to')),
];

function playerCommand(spec: PlayerCommand): Command {
  return auditedCommand(spec, 'username', accountOption, async ({ invocation, operator, reason }) => {
    const { args, options, env, io } = invocation;
    const email = typeof options.account === 'string' ? options.account.trim().toLowerCase() : '';
    if (email === '') throw usageError('--account <email> is required: the developer account the player belongs to');
    await withDatabase(adminConfig(env), async (prisma) => {
      const player = await findPlayerOfAccountEmail(prisma, email, args.username as string);
      if (!player) refuse('PLAYER_NOT_FOUND', `the account ${email} has no sandbox player ${args.username}`);
      const { changed } = await spec.change(prisma, { operator }, player, { account_email: email, reason });
      const who = `sandbox player ${player.username} (${player.id}) of ${email}`;
      io.out(`${who}: ${changed ? spec.to : `already ${spec.to}, nothing changed`}\n`);
    });
  });
}

export const disablePlayerCommand = playerCommand({
  name: 'disable-player',
  summary: 'Disable a sandbox player: /me and /cities refuse their tokens on the next call',
  details: `Disables the sandbox player with this username, of the developer account --account names. On the
very next call every user token of the player answers 403 ACCESS_DENIED (on /me and /cities), while
their consents stand; the player can no longer sign in on the player client, and a signed-in
session of theirs ends at its next page. Writes an audit record (player.disable, actor type
operator) in the same transaction. Disabling a disabled player changes nothing, records nothing,
says "already disabled" and exits 0. Exit 65 when the account has no such player.`,
  change: disablePlayer,
  to: 'disabled',
});

export const enablePlayerCommand = playerCommand({
  name: 'enable-player',
  summary: 'Enable a disabled sandbox player again',
  details: `Enables the disabled sandbox player with this username, of the developer account --account names:
their tokens under consents that still stand work again on the next call, and they can sign in.
Writes an audit record (player.enable, actor type operator) in the same transaction. Enabling an
active player changes nothing, records nothing, says "already active" and exits 0. Exit 65 when
the account has no such player.`,
  change: enablePlayer,
  to: 'active',
});
