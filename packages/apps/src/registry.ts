// Apps and their secrets in PostgreSQL: creation, rotation, revocation and authentication.
import { appScopes, type Scope, scopes as scopeCatalogue } from '@devplat/contract';
import type { App, PrismaClient } from '@devplat/db';
import { hashSecret, matchSecret, newClientId, newClientSecret } from './credentials.ts';
import { redirectUrisProblem } from './redirect-uris.ts';

export const maxActiveSecrets = 2;

/** A request the registry refuses, with a message fit for the developer. */
export class AppRuleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AppRuleError';
  }
}

export interface NewApp {
  accountId: string;
  name: string;
  redirectUris: string[];
  /** App scopes granted to the app; user scopes are consented by players. */
  scopes: string[];
  webhookUrl?: string | null;
}

export async function createApp(prisma: PrismaClient, input: NewApp): Promise<{ app: App; clientSecret: string }> {
  const problem = redirectUrisProblem(input.redirectUris);
  if (problem) throw new AppRuleError(problem);
  for (const scope of input.scopes) {
    if (!(scope in scopeCatalogue)) throw new AppRuleError(`unknown scope ${JSON.stringify(scope)}`);
  }
  const clientSecret = newClientSecret();
  const app = await prisma.app.create({
    data: {
      clientId: newClientId(),
      accountId: input.accountId,
      name: input.name,
      redirectUris: input.redirectUris,
      scopes: input.scopes,
      webhookUrl: input.webhookUrl ?? null,
      secrets: { create: { hash: hashSecret(clientSecret) } },
    },
  });
  return { app, clientSecret };
}

/** Rotation: a new secret beside the current one; both work until one is revoked. */
export async function addSecret(
  prisma: PrismaClient,
  appId: string,
): Promise<{ secretId: string; clientSecret: string }> {
  const clientSecret = newClientSecret();
  const secret = await prisma.$transaction(async (tx) => {
    // Lock the app row so two rotations cannot both pass the count.
    await tx.$queryRaw`SELECT id FROM apps WHERE id = ${appId}::uuid FOR UPDATE`;
    const active = await tx.clientSecret.count({ where: { appId, status: 'active' } });
    if (active >= maxActiveSecrets) {
      throw new AppRuleError(`an app holds at most ${maxActiveSecrets} active secrets: revoke one first`);
    }
    return tx.clientSecret.create({ data: { appId, hash: hashSecret(clientSecret) } });
  });
  return { secretId: secret.id, clientSecret };
}

export async function revokeSecret(prisma: PrismaClient, appId: string, secretId: string): Promise<boolean> {
  const { count } = await prisma.clientSecret.updateMany({
    where: { id: secretId, appId, status: 'active' },
    data: { status: 'revoked', revokedAt: new Date() },
  });
  return count === 1;
}

export type UsableApp = NonNullable<Awaited<ReturnType<typeof findUsableApp>>>;

export interface AuthenticatedClient {
  app: UsableApp;
  secretId: string;
}

/**
 * The app whose active secret this is, if the app, its developer account and the secret are all
 * active and the app is a sandbox client (production credentials are closed).
 */
export async function authenticateClient(
  prisma: PrismaClient,
  clientId: string,
  secret: string,
): Promise<AuthenticatedClient | null> {
  const app = await findUsableApp(prisma, clientId);
  if (!app) return null;
  const match = matchSecret(secret, app.secrets);
  return match ? { app, secretId: match.id } : null;
}

export async function findUsableApp(prisma: PrismaClient, clientId: string) {
  return prisma.app.findFirst({
    where: { clientId, status: 'active', environment: 'sandbox', account: { status: 'active', kind: 'full' } },
    include: { secrets: { where: { status: 'active' }, select: { id: true, hash: true } } },
  });
}

/** The app scopes an app may put in an app token. */
export function grantedAppScopes(app: Pick<App, 'scopes'>): Scope[] {
  return appScopes.filter((scope) => app.scopes.includes(scope));
}
