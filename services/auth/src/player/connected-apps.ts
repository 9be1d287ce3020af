// The player's connected apps: one entry per app they have an active consent with, and Remove
// access, which ends every active consent of the player with that app.
import { idFormats, isScope, scopeDescriptions, scopeNames } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import { activeConsentsOfPlayer, activeConsentsWithApp, endConsents } from '@devplat/domain/consents';
import type { Logger } from '@devplat/http';
import type Provider from 'oidc-provider';

export interface ConnectedApp {
  clientId: string;
  name: string;
  /** Hosts of the app's registered redirect URIs: where allowing it returned the player. */
  returnHosts: string[];
  /** The union of the scopes of every active consent with the app, in catalogue order. */
  scopes: { scope: string; description: string }[];
  firstAllowedAt: Date;
}

// A scope missing from the catalogue sorts last.
const catalogueRank = (scope: string) => (isScope(scope) ? scopeNames.indexOf(scope) : scopeNames.length);
const byCatalogueOrder = (a: string, b: string) => catalogueRank(a) - catalogueRank(b) || a.localeCompare(b);

export async function connectedApps(prisma: PrismaClient, playerId: string): Promise<ConnectedApp[]> {
  const consents = await activeConsentsOfPlayer(prisma, playerId);
  const apps = new Map<string, { app: (typeof consents)[number]['app']; scopes: Set<string>; firstAllowedAt: Date }>();
  // Oldest first, so an app's first consent is the one that says when it was first allowed.
  for (const consent of consents) {
    const entry = apps.get(consent.app.clientId) ?? {
      app: consent.app,
      scopes: new Set<string>(),
      firstAllowedAt: consent.grantedAt,
    };
    for (const scope of consent.scopes) entry.scopes.add(scope);
    apps.set(consent.app.clientId, entry);
  }
  return [...apps.values()].map(({ app, scopes, firstAllowedAt }) => ({
    clientId: app.clientId,
    name: app.name,
    returnHosts: [...new Set(app.redirectUris.map((uri) => new URL(uri).host))],
    scopes: [...scopes]
      .sort(byCatalogueOrder)
      .map((scope) => ({ scope, description: isScope(scope) ? scopeDescriptions[scope] : scope })),
    firstAllowedAt,
  }));
}

export interface AccessRemoval {
  prisma: PrismaClient;
  pairwiseSecret: string;
  provider: Provider;
  logger: Logger;
}

/**
 * Ends every active consent of the player with the app; resolves with the app's name, or null
 * when there was nothing to end (unknown app, or no active consent with it).
 */
export async function removeAccess(
  { prisma, pairwiseSecret, provider, logger }: AccessRemoval,
  playerId: string,
  clientId: string,
): Promise<string | null> {
  if (!idFormats.clientId.test(clientId)) return null;
  const consents = await activeConsentsWithApp(prisma, playerId, clientId);
  const [first] = consents;
  if (!first) return null;
  // PostgreSQL first: from this moment the api refuses every token of these consents, and each
  // receipt records the player's withdrawal as the reason.
  await prisma.$transaction((tx) => endConsents(tx, pairwiseSecret, { playerId, clientId }, 'player_withdrawal'));
  // Then the refresh-token families. The destroy hook finds each consent already ended and leaves
  // its reason alone. A store that fails here does not undo the withdrawal: the token endpoint
  // refuses to refresh under an ended consent.
  for (const { id, grantId } of consents) {
    if (!grantId) continue;
    try {
      await provider.Grant.adapter.destroy(grantId);
    } catch (error) {
      logger.error(
        { consent_id: id, err: { name: (error as Error)?.name, message: (error as Error)?.message } },
        'consent withdrawn, but its grant could not be destroyed in the store',
      );
    }
  }
  return first.app.name;
}
