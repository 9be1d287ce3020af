// Changes to apps and their secrets: creation, editing, rotation, revocation, disabling, enabling
// and deletion, and the platform's suspension. Each change that decides whether tokens work tells
// the app directory (packages/3-domain/app-directory, `AppChangeNotice` here), which every process consults through
// the per-request read. Each writes its audit record (who: `by`, a developer or an operator) in its
// transaction, only when the change happened. The consents an edit or a deletion ends are ended
// here, through the consents room, so no caller can skip them.
import { userScopes } from '@devplat/contract';
import type { App, AppStatus, Prisma, PrismaClient } from '@devplat/db';
import { newClientSecret, newWebhookSigningSecret, secretHash } from '@devplat/keys';
import { type Actor, type Operator, recordAudit } from '../audit/store.ts';
import { endConsents } from '../consents/end.ts';
import { Refusal, refuse } from '../refusal.ts';
import { newClientId } from './client-ids.ts';
import { type AppRuleSettings, checkedApp } from './rules.ts';
import {
  type AppWithSecrets,
  activeSecretCount,
  appById,
  changeAppStatus as changeStatus,
  clientIdsOf,
  insertApp,
  insertSecret,
  type LockedApp,
  lockApp,
  revokeActiveSecret,
  updateApp,
} from './store.ts';

const maxActiveSecrets = 2;

/** Who changes an app: its developer (console, CLI) or an operator (admin). */
export type By = Actor | Operator;

// Every record of this room concerns one app: each is in that app's history (appId).
const appTarget = (id: string) => ({ type: 'app', id, appId: id });

/**
 * A suspended app is the platform's to lift: its developer may delete it or revoke its secrets,
 * but neither enable, disable, edit nor rotate it.
 */
export function refuseSuspended(clientId: string): never {
  refuse('APP_SUSPENDED', `The app ${clientId} is suspended by the platform: contact support to lift the suspension.`);
}

/**
 * Told of every committed change to an app, its secrets or its account (the app directory of
 * packages/3-domain/app-directory, which every process's token endpoint and consent screen read through).
 */
export interface AppChangeNotice {
  changed(clientId: string): Promise<void>;
}

export interface NewApp extends AppRuleSettings {
  accountId: string;
  name: string;
  redirectUris: string[];
  /** App scopes granted to the app; user scopes are consented by players. */
  scopes: string[];
  webhookUrl?: string | null;
}

/** A new app with its first secret (shown once, here); audited as app.create. */
export async function createApp(
  prisma: PrismaClient,
  by: By,
  input: NewApp,
): Promise<{ app: AppWithSecrets; clientSecret: string }> {
  const name = checkedApp(input, input).name as string;
  const clientSecret = newClientSecret();
  const app = await prisma.$transaction(async (tx) => {
    const created = await insertApp(tx, {
      clientId: newClientId(),
      accountId: input.accountId,
      name,
      redirectUris: input.redirectUris,
      scopes: input.scopes,
      webhookUrl: input.webhookUrl ?? null,
      webhookSigningSecret: newWebhookSigningSecret(),
      secretHash: secretHash(clientSecret),
    });
    await recordAudit(tx, by, 'app.create', appTarget(created.id), { client_id: created.clientId });
    return created;
  });
  return { app, clientSecret };
}

/** Rotation: a new secret beside the current one; both work until one is revoked (secret.create). */
export async function addSecret(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: By,
  appId: string,
): Promise<{ secretId: string; clientSecret: string }> {
  const clientSecret = newClientSecret();
  // Bumped first: when the store is down nothing is made (fail closed), and the 503 takes nothing
  // away (a secret made behind a 503 would hold one of the two places, its value never shown).
  for (const clientId of await clientIdsOf(prisma, { id: appId })) await directory.changed(clientId);
  const { secret, clientId } = await prisma.$transaction(async (tx) => {
    // Lock the app row so two rotations cannot both pass the count.
    const app = await lockApp(tx, appId);
    if (!app) throw new Refusal('APP_NOT_FOUND', 'no such app');
    if (app.status === 'suspended') refuseSuspended(app.clientId);
    if ((await activeSecretCount(tx, appId)) >= maxActiveSecrets) {
      throw new Refusal('SECRET_LIMIT', `an app holds at most ${maxActiveSecrets} active secrets: revoke one first`);
    }
    const secret = await insertSecret(tx, appId, secretHash(clientSecret));
    const target = { type: 'client_secret', id: secret.id, appId };
    await recordAudit(tx, by, 'secret.create', target, { client_id: app.clientId });
    return { secret, clientId: app.clientId };
  });
  // Made and committed: its value is answered whatever the store does now. A cache filled between
  // the two bumps lacks only the new secret (refusing it, never another) until the next change or
  // its minute (app-directory's maxAgeMs).
  await directory.changed(clientId).catch(() => {});
  return { secretId: secret.id, clientSecret };
}

/** The secret stops authenticating on the next request (secret.revoke); false when it was revoked already. */
export function revokeSecret(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: By,
  appId: string,
  secretId: string,
): Promise<boolean> {
  return changedApps(
    prisma,
    directory,
    { id: appId },
    (tx) => revokeActiveSecret(tx, appId, secretId),
    async (tx, [clientId]) => {
      const target = { type: 'client_secret', id: secretId, appId };
      await recordAudit(tx, by, 'secret.revoke', target, { client_id: clientId });
    },
  );
}

/** The app's tokens stop on the next call; its consents stand (app.disable). APP_SUSPENDED for a suspended app. */
export function disableApp(prisma: PrismaClient, directory: AppChangeNotice, by: By, appId: string): Promise<boolean> {
  const move = developerMove(['active'], { status: 'disabled', disabledAt: new Date() });
  return changeAppStatus(prisma, directory, by, appId, 'app.disable', move);
}

/** What an edit may change; an absent member stays as it is. */
export interface AppChanges {
  name?: string;
  redirectUris?: string[];
  scopes?: string[];
  webhookUrl?: string | null;
}

/** What an edit did. */
export interface AppEdit {
  app: AppWithSecrets;
  removedScopes: string[];
  /** The consents holding a removed user scope, ended with consent.revoked (reason scope_removed). */
  consentsEnded: number;
}

/** What an edit changed, for its audit record: each changed member, before and after. */
function changedMembers(before: App, after: App) {
  const members = { name: 'name', redirectUris: 'redirect_uris', scopes: 'scopes', webhookUrl: 'webhook_url' } as const;
  return Object.fromEntries(
    Object.entries(members)
      .filter(([key]) => JSON.stringify(before[key as keyof App]) !== JSON.stringify(after[key as keyof App]))
      .map(([key, name]) => [name, { from: before[key as keyof App], to: after[key as keyof App] }]),
  );
}

const isUserScope = (scope: string) => (userScopes as readonly string[]).includes(scope);

/**
 * Edits an active app under the creation rules. The directory is told, so a removed redirect URI
 * stops matching and a removed scope stops being granted on the next request in every process.
 * The consents holding a removed user scope end in the same transaction (their consent.revoked
 * events name players by `pairwiseSecret`). Audited as app.edit with each changed member.
 */
export async function editApp(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: By,
  appId: string,
  changes: AppChanges & AppRuleSettings,
  pairwiseSecret: string,
): Promise<AppEdit> {
  const { name, redirectUris, scopes, webhookUrl } = checkedApp(changes, changes);
  return withDirectoryBumps(prisma, directory, { id: appId }, async (tx) => {
    const before = (await lockApp(tx, appId)) ? await appById(tx, appId) : null;
    if (!before) throw new Refusal('APP_NOT_FOUND', 'no such app');
    if (before.status === 'suspended') refuseSuspended(before.clientId);
    if (before.status !== 'active') {
      throw new Refusal('APP_DISABLED', `The app ${before.clientId} is disabled: enable it first.`);
    }
    const after = await updateApp(tx, appId, { name, redirectUris, scopes, webhookUrl });
    const removedScopes = before.scopes.filter((scope) => !after.scopes.includes(scope));
    const removedUserScopes = removedScopes.filter(isUserScope);
    const consentsEnded = removedUserScopes.length
      ? await endConsents(tx, pairwiseSecret, { appId, scopes: removedUserScopes }, 'scope_removed')
      : 0;
    const changed = changedMembers(before, after);
    const details = { client_id: before.clientId, changed, consents_ended: consentsEnded };
    await recordAudit(tx, by, 'app.edit', appTarget(appId), details);
    return { app: after, removedScopes, consentsEnded };
  });
}

/**
 * The reverse of disableApp: tokens of the app work again, those of its consents too (app.enable).
 * APP_SUSPENDED for a suspended app: only the platform lifts a suspension.
 */
export function enableApp(prisma: PrismaClient, directory: AppChangeNotice, by: By, appId: string): Promise<boolean> {
  const move = developerMove(['disabled'], { status: 'active', disabledAt: null });
  return changeAppStatus(prisma, directory, by, appId, 'app.enable', move);
}

/**
 * Deletes an active, disabled or suspended app for good: it stays in the table as `deleted` (its
 * client id is never handed out again) and nothing works for it any more. Its consents end in the
 * same transaction, with consent.revoked events (reason app_deleted) still delivered to its webhook
 * URL; audited as app.delete with how many consents ended. A suspended app may be deleted: that
 * gives it nothing back.
 */
export function deleteApp(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: By,
  appId: string,
  pairwiseSecret: string,
): Promise<boolean> {
  const data = { status: 'deleted', deletedAt: new Date() } as const;
  const change = (tx: Prisma.TransactionClient) => changeStatus(tx, appId, ['active', 'disabled', 'suspended'], data);
  return changedApps(prisma, directory, { id: appId }, change, async (tx, [clientId]) => {
    const consentsEnded = await endConsents(tx, pairwiseSecret, { appId }, 'app_deleted');
    const details = { client_id: clientId, consents_ended: consentsEnded };
    await recordAudit(tx, by, 'app.delete', appTarget(appId), details);
  });
}

/** What the audit record of a suspension or its end says beside the client id: why, say. */
type Details = Prisma.InputJsonObject;

/** The platform's change of one app's status (suspendApp, unsuspendApp): true when it changed something. */
export type PlatformAppChange = (
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: Operator,
  appId: string,
  details?: Details,
) => Promise<boolean>;

// A change of the platform's: `move` says where the app goes, found and locked; APP_NOT_FOUND when
// there is none or it was deleted.
const platformChange =
  (action: string, move: (app: LockedApp) => StatusMove | null): PlatformAppChange =>
  (prisma, directory, by, appId, details = {}) =>
    changeAppStatus(prisma, directory, by, appId, action, (app) => move(existingApp(app)), details);

/**
 * The platform stops an active or disabled app: its tokens are refused on their next call (the
 * api's liveness statement and the directory's usable-app read admit only active apps) and it gets
 * no new ones. Its consents stand, paused, as a disabled app's do, and its developer cannot lift
 * it (APP_SUSPENDED). Audited as app.suspend; false when it was suspended already; APP_NOT_FOUND
 * for an app deleted or unknown.
 */
export const suspendApp = platformChange('app.suspend', (app) =>
  app.status === 'suspended'
    ? null
    : { from: ['active', 'disabled'], data: { status: 'suspended', suspendedAt: new Date() } },
);

/**
 * Lifts the platform's suspension: the app returns to what its developer left it, disabled when
 * they had disabled it (disabled_at), active otherwise, and the tokens of its consents work again.
 * Audited as app.unsuspend with the status it returned to; false when it was not suspended.
 */
export const unsuspendApp = platformChange('app.unsuspend', (app) => {
  if (app.status !== 'suspended') return null;
  const status: AppStatus = app.disabledAt ? 'disabled' : 'active';
  return { from: ['suspended'], data: { status, suspendedAt: null }, recorded: { status } };
});

// The app as the platform's changes find it; APP_NOT_FOUND when there is none or it was deleted.
function existingApp(app: LockedApp | null): LockedApp {
  if (!app || app.status === 'deleted') refuse('APP_NOT_FOUND', 'no such app');
  return app;
}

/** Where a status change moves an app: from which statuses, what it sets, what its record adds. */
interface StatusMove {
  from: AppStatus[];
  data: Prisma.AppUpdateManyMutationInput;
  /** Beside the client id in the audit record. */
  recorded?: Details;
}

// The developer's changes (disable, enable): from one of `from` to what `data` sets. A suspended app
// is refused.
const developerMove =
  (from: AppStatus[], data: Prisma.AppUpdateManyMutationInput) =>
  (app: LockedApp | null): StatusMove => {
    if (app?.status === 'suspended') refuseSuspended(app.clientId);
    return { from, data };
  };

// Moves the app, locked for the transaction, where `move` says (null: leaves it), audited as
// `action` with its client id, what the move records and `details`; false when nothing changed.
function changeAppStatus(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  by: By,
  appId: string,
  action: string,
  move: (app: LockedApp | null) => StatusMove | null,
  details: Details = {},
): Promise<boolean> {
  let recorded: Details = {};
  const change = async (tx: Prisma.TransactionClient) => {
    const next = move(await lockApp(tx, appId));
    if (!next) return { count: 0 };
    recorded = next.recorded ?? {};
    return changeStatus(tx, appId, next.from, next.data);
  };
  return changedApps(prisma, directory, { id: appId }, change, async (tx, [clientId]) => {
    await recordAudit(tx, by, action, appTarget(appId), { client_id: clientId, ...recorded, ...details });
  });
}

/**
 * Tells every process's directory that these apps changed (one app, or an account's: the accounts
 * room's suspension). Bumped before the change as well: if the store is down the change does not
 * happen (fail closed), and a cache filled in between is made stale by the second bump. `changed`
 * (the change's audit record, the consents it ends) runs in the transaction only when the change
 * changed something, with the client ids of the apps. True when the change changed something.
 */
export function changedApps(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  where: { id: string } | { accountId: string },
  change: (tx: Prisma.TransactionClient) => Promise<{ count: number }>,
  changed: (tx: Prisma.TransactionClient, clientIds: string[]) => Promise<void>,
): Promise<boolean> {
  return withDirectoryBumps(prisma, directory, where, async (tx, clientIds) => {
    const { count } = await change(tx);
    if (count > 0) await changed(tx, clientIds);
    return count > 0;
  });
}

// Runs `work` in a transaction between two bumps of the directory entries of the apps `where`
// selects (none selected: nothing to bump, and `work` finds nothing either).
async function withDirectoryBumps<T>(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  where: { id: string } | { accountId: string },
  work: (tx: Prisma.TransactionClient, clientIds: string[]) => Promise<T>,
): Promise<T> {
  const clientIds = await clientIdsOf(prisma, where);
  const bump = () => Promise.all(clientIds.map((clientId) => directory.changed(clientId)));
  await bump();
  const result = await prisma.$transaction((tx) => work(tx, clientIds));
  await bump();
  return result;
}
