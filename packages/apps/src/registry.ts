// Changes to apps and their secrets in PostgreSQL: creation, rotation, revocation, disabling and
// suspension. Each change that can end tokens tells the directory (directory.ts), which every
// process consults through the per-request read (usable-app.ts).
import { isScope, scopeNames } from '@devplat/contract';
import type { App, ClientSecret, PrismaClient } from '@devplat/db';
import { hashSecret, newClientId, newClientSecret, newWebhookSigningSecret } from './credentials.ts';
import type { AppDirectory } from './directory.ts';
import { redirectUrisProblem } from './redirect-uris.ts';

const maxActiveSecrets = 2;

/** Which rule refused; the names are the console's problem codes. */
export type AppRule = 'INVALID_REQUEST' | 'NOT_FOUND' | 'SECRET_LIMIT';

/** A request the registry refuses, with a message fit for the developer. */
export class AppRuleError extends Error {
  readonly rule: AppRule;
  constructor(rule: AppRule, message: string) {
    super(message);
    this.name = 'AppRuleError';
    this.rule = rule;
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

export async function createApp(
  prisma: PrismaClient,
  input: NewApp,
): Promise<{ app: App & { secrets: ClientSecret[] }; clientSecret: string }> {
  const refuse = (message: string) => {
    throw new AppRuleError('INVALID_REQUEST', message);
  };
  const problem = redirectUrisProblem(input.redirectUris);
  if (problem) refuse(`${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
  const known = scopeNames.join(', ');
  if (input.scopes.length === 0) refuse(`scopes must name at least one of: ${known}.`);
  if (new Set(input.scopes).size !== input.scopes.length) refuse('scopes must not repeat.');
  const unknownScope = input.scopes.find((scope) => !isScope(scope));
  if (unknownScope !== undefined) refuse(`Unknown scope ${JSON.stringify(unknownScope)}. Scopes: ${known}.`);
  const clientSecret = newClientSecret();
  const app = await prisma.app.create({
    data: {
      clientId: newClientId(),
      accountId: input.accountId,
      name: input.name,
      redirectUris: input.redirectUris,
      scopes: input.scopes,
      webhookUrl: input.webhookUrl ?? null,
      webhookSigningSecret: newWebhookSigningSecret(),
      secrets: { create: { hash: hashSecret(clientSecret) } },
    },
    include: { secrets: true },
  });
  return { app, clientSecret };
}

/** Rotation: a new secret beside the current one; both work until one is revoked. */
export async function addSecret(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
): Promise<{ secretId: string; clientSecret: string }> {
  const clientSecret = newClientSecret();
  const { secret, clientId } = await prisma.$transaction(async (tx) => {
    // Lock the app row so two rotations cannot both pass the count.
    const [app] = await tx.$queryRaw<
      { client_id: string }[]
    >`SELECT client_id FROM apps WHERE id = ${appId}::uuid FOR UPDATE`;
    if (!app) throw new AppRuleError('NOT_FOUND', 'no such app');
    const active = await tx.clientSecret.count({ where: { appId, status: 'active' } });
    if (active >= maxActiveSecrets) {
      throw new AppRuleError(
        'SECRET_LIMIT',
        `an app holds at most ${maxActiveSecrets} active secrets: revoke one first`,
      );
    }
    return {
      secret: await tx.clientSecret.create({ data: { appId, hash: hashSecret(clientSecret) } }),
      clientId: app.client_id,
    };
  });
  await directory.changed(clientId);
  return { secretId: secret.id, clientSecret };
}

export async function revokeSecret(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
  secretId: string,
): Promise<boolean> {
  let count = 0;
  await changedApps(prisma, directory, { id: appId }, async () => {
    ({ count } = await prisma.clientSecret.updateMany({
      where: { id: secretId, appId, status: 'active' },
      data: { status: 'revoked', revokedAt: new Date() },
    }));
  });
  return count === 1;
}

export async function disableApp(prisma: PrismaClient, directory: AppDirectory, appId: string): Promise<void> {
  await changedApps(prisma, directory, { id: appId }, () =>
    prisma.app.updateMany({
      where: { id: appId, status: 'active' },
      data: { status: 'disabled', disabledAt: new Date() },
    }),
  );
}

export async function suspendAccount(prisma: PrismaClient, directory: AppDirectory, accountId: string): Promise<void> {
  await changedApps(prisma, directory, { accountId }, () =>
    prisma.account.updateMany({
      where: { id: accountId, status: 'active' },
      data: { status: 'suspended', suspendedAt: new Date() },
    }),
  );
}

// Tells every process's directory that these apps changed. Bumped before the change as well: if
// the store is down the change does not happen (fail closed), and a cache filled in between is
// made stale by the second bump.
async function changedApps(
  prisma: PrismaClient,
  directory: AppDirectory,
  where: { id: string } | { accountId: string },
  change: () => Promise<unknown>,
) {
  const apps = await prisma.app.findMany({ where, select: { clientId: true } });
  const bump = () => Promise.all(apps.map((app) => directory.changed(app.clientId)));
  await bump();
  await change();
  await bump();
}
