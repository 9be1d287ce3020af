import { consentTextVersion } from '@devplat/contract';
import type { Consent, OutboxEvent, Prisma, PrismaClient } from '@devplat/db';
import { insertEvent } from '../events/store.ts';
import { consentGrantedPayload } from './events.ts';
import { pairwiseSubject } from './pairwise.ts';
import { insertConsent } from './store.ts';

export interface ConsentGrant {
  app: { id: string; clientId: string };
  playerId: string;
  /** The authorization server's grant the consent backs; null for a triggered one, which backs none. */
  grantId: string | null;
  scopes: string[];
}

/** The player's Allow: the receipt under the current consent text, and its consent.granted event. */
export function grantConsent(prisma: PrismaClient, pairwiseSecret: string, grant: ConsentGrant): Promise<Consent> {
  return prisma.$transaction(async (tx) => (await insertGrantedConsent(tx, pairwiseSecret, grant)).consent);
}

/** The receipt and its consent.granted event, in the transaction of the change that grants it. */
export async function insertGrantedConsent(
  tx: Prisma.TransactionClient,
  pairwiseSecret: string,
  { app, playerId, grantId, scopes }: ConsentGrant,
): Promise<{ consent: Consent; event: OutboxEvent }> {
  const consent = await insertConsent(tx, { appId: app.id, playerId, grantId, scopes, consentTextVersion });
  const sub = pairwiseSubject(pairwiseSecret, app.clientId, playerId);
  const payload = consentGrantedPayload({ clientId: app.clientId, sub, consent });
  const event = await insertEvent(tx, { type: 'consent.granted', appId: app.id, payload });
  return { consent, event };
}
