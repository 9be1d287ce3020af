// Changes to apps and their secrets: creation, editing, rotation, revocation, disabling, enabling
// and deletion. Each change that decides whether tokens work tells the app directory
// (packages/apps, `AppChangeNotice` here), which every process consults through the per-request
// read. Each takes what else must commit with it (`alsoInTransaction`: its audit record), run only
// when the change happened. The consents an edit or a deletion ends are ended here, through the
// consents room, so no caller can skip them.
import { isScope, limits, scopeNames, userScopes } from '@devplat/contract';
import type { App, AppStatus, ClientSecret, InTransaction, Prisma, PrismaClient } from '@devplat/db';
import { endConsents } from '../consents/end.ts';
import { Refusal, type RefusalCode, refuse } from '../refusal.ts';
import { hashSecret, newClientId, newClientSecret, newWebhookSigningSecret } from './credentials.ts';
import { redirectUrisProblem } from './redirect-uris.ts';
import {
  type AppWithSecrets,
  activeSecretCount,
  appById,
  changeAppStatus as changeStatus,
  clientIdsOf,
  insertApp,
  insertSecret,
  lockApp,
  revokeActiveSecret,
  updateApp,
} from './store.ts';

const maxActiveSecrets = 2;

/**
 * Told of every committed change to an app, its secrets or its account (the app directory of
 * packages/apps, which every process's token endpoint and consent screen read through).
 */
export interface AppChangeNotice {
  changed(clientId: string): Promise<void>;
}

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
): Promise<{ app: AppWithSecrets; clientSecret: string }> {
  checkRedirectUris(input.redirectUris, input.reservedHosts);
  checkScopes(input.scopes);
  const clientSecret = newClientSecret();
  const app = await prisma.$transaction(async (tx) => {
    const created = await insertApp(tx, {
      clientId: newClientId(),
      accountId: input.accountId,
      name: input.name,
      redirectUris: input.redirectUris,
      scopes: input.scopes,
      webhookUrl: input.webhookUrl ?? null,
      webhookSigningSecret: newWebhookSigningSecret(),
      secretHash: hashSecret(clientSecret),
    });
    await alsoInTransaction?.(tx, created);
    return created;
  });
  return { app, clientSecret };
}

/** Rotation: a new secret beside the current one; both work until one is revoked. */
export async function addSecret(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  appId: string,
  alsoInTransaction?: InTransaction<ClientSecret>,
): Promise<{ secretId: string; clientSecret: string }> {
  const clientSecret = newClientSecret();
  const { secret, clientId } = await prisma.$transaction(async (tx) => {
    // Lock the app row so two rotations cannot both pass the count.
    const app = await lockApp(tx, appId);
    if (!app) throw new Refusal('APP_NOT_FOUND', 'no such app');
    if ((await activeSecretCount(tx, appId)) >= maxActiveSecrets) {
      throw new Refusal('SECRET_LIMIT', `an app holds at most ${maxActiveSecrets} active secrets: revoke one first`);
    }
    const secret = await insertSecret(tx, appId, hashSecret(clientSecret));
    await alsoInTransaction?.(tx, secret);
    return { secret, clientId: app.clientId };
  });
  await directory.changed(clientId);
  return { secretId: secret.id, clientSecret };
}

export async function revokeSecret(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  appId: string,
  secretId: string,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  return changedApps(
    prisma,
    directory,
    { id: appId },
    (tx) => revokeActiveSecret(tx, appId, secretId),
    alsoInTransaction,
  );
}

export function disableApp(
  prisma: PrismaClient,
  directory: AppChangeNotice,
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
  directory: AppChangeNotice,
  appId: string,
  changes: AppChanges & { reservedHosts?: readonly string[] },
  pairwiseSecret: string,
  alsoInTransaction?: InTransaction<AppEdit>,
): Promise<AppWithSecrets> {
  if (changes.redirectUris) checkRedirectUris(changes.redirectUris, changes.reservedHosts);
  if (changes.scopes) checkScopes(changes.scopes);
  const { name, redirectUris, scopes, webhookUrl } = changes;
  return withDirectoryBumps(prisma, directory, { id: appId }, async (tx) => {
    const before = (await lockApp(tx, appId)) ? await appById(tx, appId) : null;
    if (!before) throw new Refusal('APP_NOT_FOUND', 'no such app');
    if (before.status !== 'active') {
      throw new Refusal('APP_DISABLED', `The app ${before.clientId} is disabled: enable it first.`);
    }
    const after = await updateApp(tx, appId, { name, redirectUris, scopes, webhookUrl });
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
  directory: AppChangeNotice,
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
  directory: AppChangeNotice,
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
  directory: AppChangeNotice,
  appId: string,
  from: AppStatus[],
  data: Prisma.AppUpdateManyMutationInput,
  alsoInTransaction?: InTransaction,
): Promise<boolean> {
  const change = (tx: Prisma.TransactionClient) => changeStatus(tx, appId, from, data);
  return changedApps(prisma, directory, { id: appId }, change, alsoInTransaction);
}

/**
 * Tells every process's directory that these apps changed (one app, or an account's: the accounts
 * room's suspension). Bumped before the change as well: if the store is down the change does not
 * happen (fail closed), and a cache filled in between is made stale by the second bump. True when
 * the change changed something.
 */
export function changedApps(
  prisma: PrismaClient,
  directory: AppChangeNotice,
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
  directory: AppChangeNotice,
  where: { id: string } | { accountId: string },
  work: (tx: Prisma.TransactionClient) => Promise<T>,
): Promise<T> {
  const clientIds = await clientIdsOf(prisma, where);
  const bump = () => Promise.all(clientIds.map((clientId) => directory.changed(clientId)));
  await bump();
  const result = await prisma.$transaction(work);
  await bump();
  return result;
}
