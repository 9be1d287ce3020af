// Consent receipts end here, each with its consent.revoked outbox event in the same transaction:
// the player's Remove access and a replayed or revoked grant (auth), an app deleted or losing a
// user scope (the apps room), an operator's end (operator.ts). The event names the player by the
// app's pairwise subject, so whoever ends a consent holds PAIRWISE_SECRET.
import type { Prisma, PrismaClient, RevocationReason } from '@devplat/db';
import { insertEvent } from '../events/store.ts';
import { consentRevokedPayload } from './events.ts';
import { pairwiseSubject } from './pairwise.ts';
import { activeConsents, type ConsentSelection, markEnded } from './store.ts';

/** What endSelectedConsents did: found active, ended (fewer when a concurrent request ended some first). */
export interface SelectedEnd {
  found: number;
  ended: number;
  /** The consents ended, counted by their app (its id), with the app's client id. */
  endedByApp: Map<string, { clientId: string; ended: number }>;
  /** Each consent ended, with the consent.revoked event written for it. */
  events: { consentId: string; eventId: string }[];
}

/**
 * Ends every active consent the selection names (at most `limit`, oldest first), in the transaction
 * of the change that ends them.
 */
export async function endSelectedConsents(
  tx: Prisma.TransactionClient,
  pairwiseSecret: string,
  selection: ConsentSelection,
  reason: RevocationReason,
  limit?: number,
): Promise<SelectedEnd> {
  const revokedAt = new Date();
  const consents = await activeConsents(tx, selection, limit);
  const endedByApp: SelectedEnd['endedByApp'] = new Map();
  const events: SelectedEnd['events'] = [];
  if (consents.length === 0) return { found: 0, ended: 0, endedByApp, events };
  const ended = await markEnded(
    tx,
    consents.map((consent) => consent.id),
    revokedAt,
    reason,
  );
  for (const consent of consents) {
    if (!ended.has(consent.id)) continue; // a concurrent request ended it first, with its own event
    const { clientId } = consent.app;
    const byApp = endedByApp.get(consent.appId) ?? { clientId, ended: 0 };
    endedByApp.set(consent.appId, { clientId, ended: byApp.ended + 1 });
    const sub = pairwiseSubject(pairwiseSecret, clientId, consent.playerId);
    const payload = consentRevokedPayload({ clientId, sub, consent, revokedAt, reason });
    const event = await insertEvent(tx, { type: 'consent.revoked', appId: consent.appId, payload });
    events.push({ consentId: consent.id, eventId: event.id });
  }
  return { found: consents.length, ended: ended.size, endedByApp, events };
}

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
  return (await endSelectedConsents(tx, pairwiseSecret, selection, reason)).ended;
}

/** Ends the consent behind a grant, in a transaction of its own: each consent this call ended, with its app's client id. */
export async function endConsentOfGrant(
  prisma: PrismaClient,
  pairwiseSecret: string,
  grantId: string,
  reason: RevocationReason,
): Promise<{ consentId: string; clientId: string }[]> {
  const { events, endedByApp } = await prisma.$transaction((tx) =>
    endSelectedConsents(tx, pairwiseSecret, { grantId }, reason),
  );
  const [app] = endedByApp.values(); // a grant is one app's
  return events.map(({ consentId }) => ({ consentId, clientId: app?.clientId ?? '' }));
}
