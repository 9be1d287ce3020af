// Consent receipts end here, each with its consent.revoked outbox event in the same transaction.
import type { PrismaClient, RevocationReason } from '@devplat/db';
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
    await tx.outboxEvent.create({
      data: {
        type: 'consent.revoked',
        appId: consent.appId,
        payload: {
          app: consent.app.clientId,
          sub: pairwiseSubject(pairwiseSecret, consent.app.clientId, consent.playerId),
          scopes: consent.scopes,
          receipt_version: consent.consentTextVersion,
          consent_id: consent.id,
          revoked_at: revokedAt.toISOString(),
          reason,
        },
      },
    });
    return true;
  });
}
