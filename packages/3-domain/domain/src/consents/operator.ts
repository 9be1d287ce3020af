// The platform ends consents (an operator, through the admin command): one consent, all of an
// app's, or all of a player's with every app. Each consent ends as any other does (endConsents: its
// consent.revoked event, reason operator_revocation, in the same transaction), so every token under
// it is refused on its next call: the api's liveness statement reads the consent's status, and the
// token endpoint refuses a refresh under an ended consent (services/auth/src/grants/refresh-token.ts).
//
// The bulk ends run in transactions of at most `batchSize` consents, so a large app never holds one
// long transaction. Each batch is a change of its own and commits with its own audit record (one
// record for a run of up to `batchSize` consents); the records of one run share its `run` id. A run
// cut short leaves the consents it ended ended and recorded: a second run ends what is left, and a
// run that finds nothing ends nothing and records nothing. A player's end spans apps, and each app's
// history shows what the platform ended of it: its batches record one record per app they touched.
import { randomUUID } from 'node:crypto';
import { isUuid, type Prisma, type PrismaClient } from '@devplat/db';
import { type AuditTarget, type Operator, recordAudit } from '../audit/store.ts';
import { refuse } from '../refusal.ts';
import { endSelectedConsents } from './end.ts';
import { type ConsentSelection, findConsent } from './store.ts';

/** What the audit record says beside what was ended: why, say. */
type Details = Prisma.InputJsonObject;

/** Consents ended per transaction by the bulk ends. */
export const operatorEndBatchSize = 500;

export interface OperatorEnd {
  /** The consent's state after the call. */
  consent: { id: string; clientId: string; playerId: string; status: string; revocationReason: string | null };
  /** False when it had ended already: nothing was changed or recorded. */
  ended: boolean;
}

/** Ends one consent (consent.end); CONSENT_NOT_FOUND when there is none with the id. */
export async function endConsentByOperator(
  prisma: PrismaClient,
  pairwiseSecret: string,
  by: Operator,
  consentId: string,
  details: Details = {},
): Promise<OperatorEnd> {
  const notFound = () => refuse('CONSENT_NOT_FOUND', `no consent has the id ${consentId}`);
  if (!isUuid(consentId)) notFound();
  return prisma.$transaction(async (tx) => {
    const { ended } = await endSelectedConsents(tx, pairwiseSecret, { consentId }, 'operator_revocation');
    const consent = await findConsent(tx, consentId);
    if (!consent) return notFound();
    const clientId = consent.app.clientId;
    if (ended > 0) {
      const target = { type: 'consent', id: consentId, appId: consent.appId };
      await recordAudit(tx, by, 'consent.end', target, {
        client_id: clientId,
        player_id: consent.playerId,
        ...details,
      });
    }
    const { id, playerId, status, revocationReason } = consent;
    return { consent: { id, clientId, playerId, status, revocationReason }, ended: ended > 0 };
  });
}

export interface BulkEnd {
  /** How many consents this run ended. */
  ended: number;
  /** How many transactions ended some (each wrote its audit record, or one per app for a player's). */
  batches: number;
}

export interface BulkOptions {
  batchSize?: number;
}

/** A bulk end of every active consent of one app or player, as many batches as it takes. */
export type BulkEndOf<Subject> = (
  prisma: PrismaClient,
  pairwiseSecret: string,
  by: Operator,
  subject: Subject,
  details?: Details,
  options?: BulkOptions,
) => Promise<BulkEnd>;

// A bulk end: the consents `plan` selects of the subject, each batch recorded as it says.
const bulkEnd =
  <Subject>(plan: (subject: Subject) => { selection: ConsentSelection; audit: BatchAudit }): BulkEndOf<Subject> =>
  (prisma, pairwiseSecret, by, subject, details = {}, options = {}) => {
    const { selection, audit } = plan(subject);
    return endInBatches(prisma, pairwiseSecret, by, selection, audit, details, options);
  };

/** Every active consent of the app (app.consents_end, per batch, with its client id). */
export const endAppConsents = bulkEnd((app: { id: string; clientId: string }) => ({
  selection: { appId: app.id },
  audit: {
    action: 'app.consents_end',
    target: { type: 'app', id: app.id, appId: app.id },
    details: { client_id: app.clientId },
  },
}));

/** Every active consent of the player, with every app (player.consents_end, per batch, with the username). */
export const endPlayerConsents = bulkEnd((player: { id: string; username: string }) => ({
  selection: { playerId: player.id },
  audit: {
    action: 'player.consents_end',
    target: { type: 'sandbox_player', id: player.id },
    details: { username: player.username },
    perApp: true,
  },
}));

interface BatchAudit {
  action: string;
  target: AuditTarget;
  details: Details;
  /** One record per app the batch ended consents of (its client id and count), not one per batch. */
  perApp?: boolean;
}

async function endInBatches(
  prisma: PrismaClient,
  pairwiseSecret: string,
  by: Operator,
  selection: ConsentSelection,
  audit: BatchAudit,
  details: Details,
  { batchSize = operatorEndBatchSize }: BulkOptions,
): Promise<BulkEnd> {
  const run = randomUUID();
  const total: BulkEnd = { ended: 0, batches: 0 };
  for (;;) {
    const { found, ended } = await prisma.$transaction(async (tx) => {
      const batch = await endSelectedConsents(tx, pairwiseSecret, selection, 'operator_revocation', batchSize);
      if (!audit.perApp && batch.ended > 0) {
        const recorded = { ...audit.details, consents_ended: batch.ended, run, ...details };
        await recordAudit(tx, by, audit.action, audit.target, recorded);
      }
      if (audit.perApp) {
        for (const [appId, { clientId, ended }] of batch.endedByApp) {
          const recorded = { ...audit.details, client_id: clientId, consents_ended: ended, run, ...details };
          await recordAudit(tx, by, audit.action, { ...audit.target, appId }, recorded);
        }
      }
      return batch;
    });
    total.ended += ended;
    if (ended > 0) total.batches += 1;
    // Fewer than a batch left: done. (A batch that a concurrent end emptied is followed by another.)
    if (found < batchSize) return total;
  }
}
