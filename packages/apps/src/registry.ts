// Changes to apps and their secrets in PostgreSQL: creation, editing, rotation, revocation,
// disabling, enabling, deletion, suspension and reactivation. Each change that decides whether tokens work tells the directory
// (directory.ts), which every process consults through the per-request read (usable-app.ts). Each
// takes what else must commit with it (`alsoInTransaction`: its audit record), run only when the
// change happened. The consents an edit or a deletion ends are ended here, through the consents
// room, so no caller can skip them.
import { isScope, limits, scopeNames, userScopes } from '@devplat/contract';
import type { AccountStatus, App, AppStatus, ClientSecret, InTransaction, Prisma, PrismaClient } from '@devplat/db';
import { endConsents } from '@devplat/domain/consents';
import { Refusal, type RefusalCode, refuse } from '@devplat/domain/refusal';
import { hashSecret, newClientId, newClientSecret, newWebhookSigningSecret } from './credentials.ts';
import type { AppDirectory } from './directory.ts';
import { redirectUrisProblem } from './redirect-uris.ts';

const maxActiveSecrets = 2;

export interface NewApp {
  accountId: string;
  name: string;
  redirectUris: string[];
  /** App scopes granted to the app; user scopes are consented by players. */
  scopes: string[];
  webhookUrl?: string | null;
  /** The platform's cookie hosts (config `cookieHosts`), where no redirect URI may point. */
  reservedHosts?: readonly string[];
}

/** Rule 8 for redirect URIs (at most five, exact, never on a platform host), as a sentence. */
function checkRedirectUris(uris: string[], reservedHosts?: readonly string[]) {
  const problem = redirectUrisProblem(uris, reservedHosts);
  if (!problem) return;
  const code: RefusalCode = uris.length > limits.maxRedirectUris ? 'TOO_MANY_REDIRECT_URIS' : 'INVALID_REDIRECT_URI';
  refuse(code, `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
}

/** At least one scope of the catalogue, none twice. */
function checkScopes(scopes: string[]) {
  const known = scopeNames.join(', ');
  if (scopes.length === 0) refuse('INVALID_SCOPES', `scopes must name at least one of: ${known}.`);
  if (new Set(scopes).size !== scopes.length) refuse('INVALID_SCOPES', 'scopes must not repeat.');
  const unknownScope = scopes.find((scope) => !isScope(scope));
  if (unknownScope !== undefined) {
    refuse('UNKNOWN_SCOPE', `Unknown scope ${JSON.stringify(unknownScope)}. Scopes: ${known}.`);
  }
}

export async function createApp(
  prisma: PrismaClient,
  input: NewApp,
  alsoInTransaction?: InTransaction<App>,
): Promise<{ app: App & { secrets: ClientSecret[] }; clientSecret: string }> {
  checkRedirectUris(input.redirectUris, input.reservedHosts);
  checkScopes(input.scopes);
  const clientSecret = newClientSecret();
  const app = await prisma.$transaction(async (tx) => {
    const created = await tx.app.create({
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
    await alsoInTransaction?.(tx, created);
    return created;
  });
  return { app, clientSecret };
}

/** Rotation: a new secret beside the current one; both work until one is revoked. */
export async function addSecret(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
  alsoInTransaction?: InTransaction<ClientSecret>,
): Promise<{ secretId: string; clientSecret: string }> {
  const clientSecret = newClientSecret();
  const { secret, clientId } = await prisma.$transaction(async (tx) => {
    // Lock the app row so two rotations cannot both pass the count.
    const [app] = await tx.$queryRaw<
      { client_id: string }[]
    >`SELECT client_id FROM apps WHERE id = ${appId}::uuid FOR UPDATE`;
    if (!app) throw new Refusal('APP_NOT_FOUND', 'no such app');
    const active = await tx.clientSecret.count({ where: { appId, status: 'active' } });
    if (active >= maxActiveSecrets) {
      throw new Refusal('SECRET_LIMIT', `an app holds at most ${maxActiveSecrets} active secrets: revoke one first`);
    }
    const secret = await tx.clientSecret.create({ data: { appId, hash: hashSecret(clientSecret) } });
    await alsoInTransaction?.(tx, secret);
    return { secret, clientId: app.client_id };
  });
  await directory.changed(clientId);
  return { secretId: secret.id, clientSecret };
}

export async function revokeSecret(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
  secretId: string,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  return changedApps(
    prisma,
    directory,
    { id: appId },
    (tx) =>
      tx.clientSecret.updateMany({
        where: { id: secretId, appId, status: 'active' },
        data: { status: 'revoked', revokedAt: new Date() },
      }),
    alsoInTransaction,
  );
}

export function disableApp(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  const data = { status: 'disabled', disabledAt: new Date() } as const;
  return changeAppStatus(prisma, directory, appId, ['active'], data, alsoInTransaction);
}

/** What an edit may change; an absent member stays as it is. */
export interface AppChanges {
  name?: string;
  redirectUris?: string[];
  scopes?: string[];
  webhookUrl?: string | null;
}

/** What an edit did, for its audit record. */
export interface AppEdit {
  before: App;
  after: App;
  removedScopes: string[];
  /** The consents holding a removed user scope, ended with consent.revoked (reason scope_removed). */
  consentsEnded: number;
}

const isUserScope = (scope: string) => (userScopes as readonly string[]).includes(scope);

/**
 * Edits an active app under the creation rules. The directory is told, so a removed redirect URI
 * stops matching and a removed scope stops being granted on the next request in every process.
 * The consents holding a removed user scope end in the same transaction (their consent.revoked
 * events name players by `pairwiseSecret`). `alsoInTransaction` sees what the edit did (to audit).
 */
export function editApp(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
  changes: AppChanges & { reservedHosts?: readonly string[] },
  pairwiseSecret: string,
  alsoInTransaction?: InTransaction<AppEdit>,
): Promise<App & { secrets: ClientSecret[] }> {
  if (changes.redirectUris) checkRedirectUris(changes.redirectUris, changes.reservedHosts);
  if (changes.scopes) checkScopes(changes.scopes);
  const { name, redirectUris, scopes, webhookUrl } = changes;
  return withDirectoryBumps(prisma, directory, { id: appId }, async (tx) => {
    const [locked] = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM apps WHERE id = ${appId}::uuid FOR UPDATE`;
    const before = locked ? await tx.app.findUnique({ where: { id: appId } }) : null;
    if (!before) throw new Refusal('APP_NOT_FOUND', 'no such app');
    if (before.status !== 'active') {
      throw new Refusal('APP_DISABLED', `The app ${before.clientId} is disabled: enable it first.`);
    }
    const after = await tx.app.update({
      where: { id: appId },
      data: { name, redirectUris, scopes, webhookUrl },
      include: { secrets: true },
    });
    const removedScopes = before.scopes.filter((scope) => !after.scopes.includes(scope));
    const removedUserScopes = removedScopes.filter(isUserScope);
    const consentsEnded = removedUserScopes.length
      ? await endConsents(tx, pairwiseSecret, { appId, scopes: removedUserScopes }, 'scope_removed')
      : 0;
    await alsoInTransaction?.(tx, { before, after, removedScopes, consentsEnded });
    return after;
  });
}

/** The reverse of disableApp: tokens of the app work again, those of its consents too. */
export function enableApp(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  const data = { status: 'active', disabledAt: null } as const;
  return changeAppStatus(prisma, directory, appId, ['disabled'], data, alsoInTransaction);
}

/**
 * Deletes an active or disabled app for good: it stays in the table as `deleted` (its client id is
 * never handed out again) and nothing works for it any more. Its consents end in the same
 * transaction, with consent.revoked events (reason app_deleted) still delivered to its webhook URL.
 */
export function deleteApp(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
  pairwiseSecret: string,
  alsoInTransaction?: InTransaction<{ consentsEnded: number }>,
): Promise<boolean> {
  const data = { status: 'deleted', deletedAt: new Date() } as const;
  return changeAppStatus(prisma, directory, appId, ['active', 'disabled'], data, async (tx) => {
    const consentsEnded = await endConsents(tx, pairwiseSecret, { appId }, 'app_deleted');
    await alsoInTransaction?.(tx, { consentsEnded });
  });
}

// Moves an app from one of `from` to the status `data` sets; false when it was in none of them.
function changeAppStatus(
  prisma: PrismaClient,
  directory: AppDirectory,
  appId: string,
  from: AppStatus[],
  data: Prisma.AppUpdateManyMutationInput,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  const change = (tx: Prisma.TransactionClient) =>
    tx.app.updateMany({ where: { id: appId, status: { in: from } }, data });
  return changedApps(prisma, directory, { id: appId }, change, alsoInTransaction);
}

export async function suspendAccount(
  prisma: PrismaClient,
  directory: AppDirectory,
  accountId: string,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  return changeAccountStatus(prisma, directory, accountId, 'suspended', alsoInTransaction);
}

/** The reverse of suspendAccount: the account's apps work again (those not disabled on their own). */
export async function reactivateAccount(
  prisma: PrismaClient,
  directory: AppDirectory,
  accountId: string,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  return changeAccountStatus(prisma, directory, accountId, 'active', alsoInTransaction);
}

// Suspends an active account or reactivates a suspended one, with its apps' directory entries.
function changeAccountStatus(
  prisma: PrismaClient,
  directory: AppDirectory,
  accountId: string,
  status: AccountStatus,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  const suspending = status === 'suspended';
  return changedApps(
    prisma,
    directory,
    { accountId },
    (tx) =>
      tx.account.updateMany({
        where: { id: accountId, status: suspending ? 'active' : 'suspended' },
        data: { status, suspendedAt: suspending ? new Date() : null },
      }),
    alsoInTransaction,
  );
}

// Tells every process's directory that these apps changed. Bumped before the change as well: if
// the store is down the change does not happen (fail closed), and a cache filled in between is
// made stale by the second bump. True when the change changed something.
function changedApps(
  prisma: PrismaClient,
  directory: AppDirectory,
  where: { id: string } | { accountId: string },
  change: (tx: Prisma.TransactionClient) => Promise<{ count: number }>,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  return withDirectoryBumps(prisma, directory, where, async (tx) => {
    const { count } = await change(tx);
    if (count > 0) await alsoInTransaction?.(tx);
    return count > 0;
  });
}

// Runs `work` in a transaction between two bumps of the directory entries of the apps `where`
// selects (none selected: nothing to bump, and `work` finds nothing either).
async function withDirectoryBumps<T>(
  prisma: PrismaClient,
  directory: AppDirectory,
  where: { id: string } | { accountId: string },
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const apps = await prisma.app.findMany({ where, select: { clientId: true } });
  const bump = () => Promise.all(apps.map((app) => directory.changed(app.clientId)));
  await bump();
  const result = await prisma.$transaction(work);
  await bump();
  return result;
}
