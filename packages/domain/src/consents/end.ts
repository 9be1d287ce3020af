// Consent receipts end here, each with its consent.revoked outbox event in the same transaction:
// the player's Remove access and a replayed or revoked grant (auth), an app deleted or losing a
// user scope (the apps room). The event names the player by the app's pairwise subject, so whoever
// ends a consent holds PAIRWISE_SECRET.
import type { Prisma, PrismaClient, RevocationReason } from '@devplat/db';
import { insertEvent } from '../events/store.ts';
import { consentRevokedPayload } from './events.ts';
import { pairwiseSubject } from './pairwise.ts';
import { activeConsents, type ConsentSelection, markEnded } from './store.ts';

/**
 * Ends every active consent the selection names, in the transaction of the change that ends them;
 * resolves with how many this call ended.
 */
export async function endConsents(
  tx: Prisma.TransactionClient,
  pairwiseSecret: string,
  selection: ConsentSelection,
  reason: RevocationReason,
): Promise<number> {
  const revokedAt = new Date();
  let ended = 0;
  for (const consent of await activeConsents(tx, selection)) {
    if (!(await markEnded(tx, consent.id, revokedAt, reason))) continue; // a concurrent request ended it first
    ended++;
    const { clientId } = consent.app;
    const sub = pairwiseSubject(pairwiseSecret, clientId, consent.playerId);
    const payload = consentRevokedPayload({ clientId, sub, consent, revokedAt, reason });
    await insertEvent(tx, { type: 'consent.revoked', appId: consent.appId, payload });
  }
  return ended;
}

/** Ends one consent, or the one behind a grant, in a transaction of its own; false when it was not active. */
export async function endConsent(
  prisma: PrismaClient,
  pairwiseSecret: string,
  which: { consentId: string } | { grantId: string },
  reason: RevocationReason,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => (await endConsents(tx, pairwiseSecret, which, reason)) > 0);
}
