// A consent receipt ends here (one at a time), with its consent.revoked outbox event.
import type { PrismaClient, RevocationReason } from '@devplat/db';
import { endConsents } from '@devplat/webhooks';

export async function endConsent(
  prisma: PrismaClient,
  pairwiseSecret: string,
  where: { grantId: string } | { id: string },
  reason: RevocationReason,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => (await endConsents(tx, pairwiseSecret, where, reason)) > 0);
}
