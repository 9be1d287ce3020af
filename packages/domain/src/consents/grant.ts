import { consentTextVersion } from '@devplat/contract';
import type { Consent, PrismaClient } from '@devplat/db';
import { insertEvent } from '../events/store.ts';
import { consentGrantedPayload } from './events.ts';
import { pairwiseSubject } from './pairwise.ts';
import { insertConsent } from './store.ts';

export interface ConsentGrant {
  app: { id: string; clientId: string };
  playerId: string;
  /** The authorization server's grant the consent backs. */
  grantId: string;
  scopes: string[];
}

/** The player's Allow: the receipt under the current consent text, and its consent.granted event. */
export function grantConsent(
  prisma: PrismaClient,
  pairwiseSecret: string,
  { app, playerId, grantId, scopes }: ConsentGrant,
): Promise<Consent> {
  return prisma.$transaction(async (tx) => {
    const consent = await insertConsent(tx, { appId: app.id, playerId, grantId, scopes, consentTextVersion });
    const sub = pairwiseSubject(pairwiseSecret, app.clientId, playerId);
    const payload = consentGrantedPayload({ clientId: app.clientId, sub, consent });
    await insertEvent(tx, { type: 'consent.granted', appId: app.id, payload });
    return consent;
  });
}
