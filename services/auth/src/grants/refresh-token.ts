// refresh_token: the rules of a refresh-token family beyond the provider's own (rotation on every
// use, replay revokes the family).
//
// 1. A refresh under an ended consent is refused. The consent receipt in PostgreSQL is the
//    authority, not the grant in the store: every path that ends a consent commits the receipt
//    first, and a grant that outlived it must not mint tokens. The check runs as the last step
//    before a user token is signed (token-claims.ts, the provider's extraTokenClaims), so it also
//    holds for a code redeemed after its player withdrew the consent.
// 2. Narrowing sticks: a refresh that asks for fewer scopes rotates to a refresh token holding only
//    those, so a later, wider request is invalid_scope (the provider checks a request against the
//    presented token's scopes). The code exchange narrows the same way (authorization-code.ts).
// 3. The family lives while it is used: each rotated token is valid 30 days from its own issue, and
//    each rotation gives the grant 30 more days, so a family used at least every 30 days never
//    expires; one left unused for 30 days ends by expiry, and its consent stays as the player
//    granted it.
// Rules 2 and 3 run in the provider's rotateRefreshToken hook: the one step between the checks of
// the presented token and the copy of its scope into the new one. Rule 1 is checked there too, for a
// refresh, before the presented token is used up: a PostgreSQL that fails the check then answers 503
// and leaves the token usable for the client's retry. The claims reuse that answer.
//
// The check is one statement through the driver, shared by the checks that arrive together
// (groupCommit): Prisma's findFirst cost more than the bare refresh route itself (measured:
// docs/benchmarks.md). Each call still waits for a statement that starts after it arrived, so a
// consent ended before the call is seen by it.
import { limits } from '@devplat/contract';
import { groupCommit, type Query, statementRoundTrips } from '@devplat/db';
import { activeConsentIdsOfGrants } from '@devplat/domain/consents';
import { type Metrics, observedBatch } from '@devplat/metrics';
import { errors, type KoaContextWithOIDC } from 'oidc-provider';
import { type TokenRequestFacts, tokenRequestFacts } from '../token-request.ts';

/** The active consent behind a grant, or null once it has ended. */
export type ConsentOfGrant = (grantId: string) => Promise<string | null>;

export function consentOfGrant(query: Query, metrics?: Metrics): ConsentOfGrant {
  return groupCommit(
    observedBatch(metrics, 'consent_of_grant', (grantIds: string[]) => activeConsentIdsOfGrants(query, grantIds)),
    statementRoundTrips(query),
  );
}

/**
 * The id of the active consent behind a grant; invalid_grant when it has ended. The request's own
 * check (a refresh checks before rotating) is the answer for the rest of the request.
 */
export async function activeConsentId(
  consents: ConsentOfGrant,
  grantId: string,
  facts: TokenRequestFacts,
): Promise<string> {
  if (facts.consent?.grantId === grantId) return facts.consent.consentId;
  const consentId = await consents(grantId);
  if (!consentId) throw new errors.InvalidGrant('the consent behind this grant has ended');
  return consentId;
}

/** Rules 1 to 3, as the presented refresh token is about to be rotated; always rotates. */
export async function rotateFamily(consents: ConsentOfGrant, ctx: KoaContextWithOIDC): Promise<true> {
  const { RefreshToken: presented, Grant: grant } = ctx.oidc.entities;
  const facts = tokenRequestFacts(ctx);
  if (presented?.grantId) {
    facts.consent = {
      grantId: presented.grantId,
      consentId: await activeConsentId(consents, presented.grantId, facts),
    };
  }
  // The provider has checked that the asked scopes are a subset of the presented token's.
  if (presented && ctx.oidc.params?.scope) presented.scope = [...ctx.oidc.requestParamScopes].join(' ');
  if (grant) {
    // Written with the rotation's swap, not now: a request that fails before it extends nothing.
    facts.extendedGrant = { grantId: grant.jti };
    grant.exp = Math.floor(Date.now() / 1000) + limits.refreshTokenSeconds;
    await grant.save();
  }
  return true;
}
