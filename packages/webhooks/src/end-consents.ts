// Consent receipts end here, each with its consent.revoked outbox event in the caller's transaction:
// the player client's Remove access, a replayed code or refresh token (auth), and an app deleted or
// losing a user scope (the console). The event names the player by the app's pairwise subject, so
// whoever ends a consent holds PAIRWISE_SECRET.
import type { Prisma, RevocationReason } from '@devplat/db';
import { consentRevokedPayload } from './consent-events.ts';
import { pairwiseSubject } from './pairwise.ts';

/** Ends every active consent `where` selects; resolves with how many this call ended. */
export async function endConsents(
  tx: Prisma.TransactionClient,
  pairwiseSecret: string,
  where: Prisma.ConsentWhereInput,
  reason: RevocationReason,
): Promise<number> {
  const consents = await tx.consent.findMany({
    where: { ...where, status: 'active' },
    include: { app: { select: { clientId: true } } },
    orderBy: { grantedAt: 'asc' },
  });
  const revokedAt = new Date();
  let ended = 0;
  for (const consent of consents) {
    const { count } = await tx.consent.updateMany({
      where: { id: consent.id, status: 'active' },
      data: { status: 'revoked', revokedAt, revocationReason: reason },
    });
    if (count === 0) continue; // a concurrent request ended it first
    ended++;
    const { clientId } = consent.app;
    const sub = pairwiseSubject(pairwiseSecret, clientId, consent.playerId);
    await tx.outboxEvent.create({
      data: {
        type: 'consent.revoked',
        appId: consent.appId,
        payload: consentRevokedPayload({ clientId, sub, consent, revokedAt, reason }),
      },
    });
  }
  return ended;
}
