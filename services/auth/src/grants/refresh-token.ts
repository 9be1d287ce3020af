// refresh_token: a refresh under an ended consent is refused. The consent receipt in PostgreSQL is
// the authority, not the grant in the store: every path that ends a consent commits the receipt,
// and a grant that outlived it (its deletion from the store failed) must not mint tokens. The check
// runs as the last step before a user token is signed (token-claims.ts, the provider's
// extraTokenClaims), so it also holds for a code redeemed after its player withdrew the consent.
import type { PrismaClient } from '@devplat/db';
import { errors } from 'oidc-provider';

/** The id of the active consent behind a grant; invalid_grant when it has ended. */
export async function activeConsentId(prisma: PrismaClient, grantId: string): Promise<string> {
  const consent = await prisma.consent.findFirst({ where: { grantId, status: 'active' }, select: { id: true } });
  if (!consent) throw new errors.InvalidGrant('the consent behind this grant has ended');
  return consent.id;
}
