// Consent receipts end here, each with its consent.revoked outbox event in the same transaction.
import type { PrismaClient, RevocationReason } from '@devplat/db';
import { consentRevokedPayload } from '@devplat/webhooks';
import { pairwiseSubject } from './pairwise.ts';

export async function endConsent(
  prisma: PrismaClient,
  pairwiseSecret: string,
  where: { grantId: string } | { id: string },
  reason: RevocationReason,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const consent = await tx.consent.findFirst({ where: { ...where, status: 'active' }, include: { app: true } });
    if (!consent) return false;
    const revokedAt = new Date();
    const { count } = await tx.consent.updateMany({
      where: { id: consent.id, status: 'active' },
      data: { status: 'revoked', revokedAt, revocationReason: reason },
    });
    if (count === 0) return false; // a concurrent request ended it first
    const { clientId } = consent.app;
    const sub = pairwiseSubject(pairwiseSecret, clientId, consent.playerId);
    await tx.outboxEvent.create({
      data: {
        type: 'consent.revoked',
        appId: consent.appId,
        payload: consentRevokedPayload({ clientId, sub, consent, revokedAt, reason }),
      },
    });
    return true;
  });
}
