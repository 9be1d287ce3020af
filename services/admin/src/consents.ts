// admin end-consent / end-app-consents / end-player-consents: the platform ends consents. The
// consents room (@devplat/domain/consents) ends each with its consent.revoked event (reason
// operator_revocation) and writes the audit record in the same transaction, only when something
// ended, so a second run ends nothing and records nothing. Nothing is cached to tell: every token
// under an ended consent is refused on its next call (the api's liveness statement reads the
// consent; the token endpoint refuses a refresh under it), so these commands need no Redis.
import type { PrismaClient } from '@devplat/db';
import { appWithClientId } from '@devplat/domain/apps';
import {
  type BulkEnd,
  endAppConsents,
  endConsentByOperator,
  endPlayerConsents,
  operatorEndBatchSize,
} from '@devplat/domain/consents';
import { playerNamed } from '@devplat/domain/players';
import { type AuditedRun, auditedCommand, type Command, type CommandText } from './command.ts';
import { adminConfig, pairwiseSecret, withDatabase } from './connections.ts';

/** A command that ends consents: it needs the database and PAIRWISE_SECRET (checked first, exit 78). */
function consentCommand(
  text: CommandText,
  argument: string,
  work: (prisma: PrismaClient, secret: string, run: AuditedRun) => Promise<void>,
): Command {
  return auditedCommand(text, argument, [], async (run) => {
    const config = adminConfig(run.invocation.env);
    const secret = pairwiseSecret(run.invocation.env);
    await withDatabase(config, (prisma) => work(prisma, secret, run));
  });
}

const ended = ({ ended, batches }: BulkEnd) =>
  ended === 0
    ? 'no active consent, nothing changed'
    : `${ended} consent${ended === 1 ? '' : 's'} ended (${batches} transaction${batches === 1 ? '' : 's'})`;

const transactions = `Each transaction ends at most ${operatorEndBatchSize} consents and commits with its own audit record (its
count, and the run id the records of one run share): an interrupted run keeps what it ended, and
a second run ends the rest.`;

export const endConsentCommand = consentCommand(
  {
    name: 'end-consent',
    summary: 'End one consent: its tokens are refused on their next call',
    details: `Ends the consent with this id (a player's consent to one app). On the very next call its access
tokens answer 403 CONSENT_REVOKED on /cities and /me, and its refresh token is refused
(invalid_grant); the app receives a consent.revoked event with reason operator_revocation. The
player may allow the app again. Writes an audit record (consent.end, actor type operator) in the
same transaction. Ending an ended consent changes nothing, records nothing, says "already ended"
and exits 0. Needs PAIRWISE_SECRET (the auth service's: the event names the player by the app's
pairwise subject). Exit 65 when no consent has the id.`,
  },
  'consent_id',
  async (prisma, secret, { invocation: { args, io }, operator, reason }) => {
    const { consent, ended } = await endConsentByOperator(prisma, secret, { operator }, args.consent_id as string, {
      reason,
    });
    const who = `consent ${consent.id} (app ${consent.clientId}, player ${consent.playerId})`;
    io.out(`${who}: ${ended ? 'ended' : `already ended (${consent.revocationReason}), nothing changed`}\n`);
  },
);

export const endAppConsentsCommand = consentCommand(
  {
    name: 'end-app-consents',
    summary: 'End every active consent of an app',
    details: `Ends every active consent of the app with this client id, each with a consent.revoked event
(reason operator_revocation) to the app. The tokens under each consent are refused on their next
call from the moment its transaction commits (403 CONSENT_REVOKED; refresh: invalid_grant). To stop
all of the app's tokens at once, and keep players from allowing it again, run suspend-app first.
Writes app.consents_end audit records (actor type operator). Exit 65 when no app has the client
id, or it was deleted (its consents ended then). Needs PAIRWISE_SECRET, as end-consent does.

${transactions}`,
  },
  'client_id',
  async (prisma, secret, { invocation: { args, io }, operator, reason }) => {
    const app = await appWithClientId(prisma, args.client_id as string);
    const result = await endAppConsents(prisma, secret, { operator }, app, { reason });
    io.out(`app ${app.clientId} (${JSON.stringify(app.name)}): ${ended(result)}\n`);
    if (app.status === 'active') {
      io.note(
        'note: the app is active: players may allow it again, and its app tokens still work; suspend-app stops it.',
      );
    }
  },
);

export const endPlayerConsentsCommand = consentCommand(
  {
    name: 'end-player-consents',
    summary: 'End every active consent of a sandbox player, with every app',
    details: `Ends every active consent of the sandbox player with this username (or id), with every app, each
with a consent.revoked event (reason operator_revocation) to its app. Their access tokens answer
403 CONSENT_REVOKED on the next call and their refresh tokens are refused (invalid_grant). The
player may still sign in and allow apps again: disable-player keeps them out. Writes
player.consents_end audit records (actor type operator). Exit 65 when no player has the username
or id. Needs PAIRWISE_SECRET, as end-consent does.

${transactions}`,
  },
  'player',
  async (prisma, secret, { invocation: { args, io }, operator, reason }) => {
    const player = await playerNamed(prisma, args.player as string);
    const result = await endPlayerConsents(prisma, secret, { operator }, player, { reason });
    io.out(`sandbox player ${player.username} (${player.id}): ${ended(result)}\n`);
  },
);
