// A developer's own apps, as the console serves them: creation, editing, the secret shown once,
// rotation, revocation, disabling, enabling, deletion, from the developer's input read by the apps
// room's rules. Every read and change is scoped to the signed-in account, and another developer's
// app (or a deleted one) answers exactly like one that does not exist. An app the platform
// suspended is listed and shown, may be deleted and its secrets revoked, but nothing else
// (APP_SUSPENDED).
import type { WebhookSettings } from '@devplat/config';
import type { DeliveryView } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import type { Actor } from '../audit/store.ts';
import { activeConsentCount, consentActivity } from '../consents/store.ts';
import type { Db } from '../db.ts';
import { listDeliveries } from '../events/deliveries.ts';
import { deliveriesPerDay } from '../events/store.ts';
import { type JsonBody, refuseInput, stringList } from '../input.ts';
import { refuse } from '../refusal.ts';
import {
  type AppChangeNotice,
  type AppChanges,
  addSecret,
  createApp,
  deleteApp,
  disableApp,
  editApp,
  enableApp,
  refuseSuspended,
  revokeSecret,
} from './operations.ts';
import { type AppWithSecrets, appsOfAccount, findAppByClientId, findAppWithSecrets } from './store.ts';

/** The account's app with this client id, unless deleted; APP_NOT_FOUND otherwise. */
export async function appOfDeveloper(db: Db, accountId: string, clientId: string): Promise<AppWithSecrets> {
  const app = await findAppByClientId(db, clientId);
  if (app && app.accountId === accountId && app.status !== 'deleted') return app;
  return refuse('APP_NOT_FOUND', `The app ${clientId} does not exist or is not yours.`);
}

/** The account's app, if it is active (APP_DISABLED, or APP_SUSPENDED by the platform, otherwise). */
export async function activeAppOfDeveloper(db: Db, accountId: string, clientId: string): Promise<AppWithSecrets> {
  const app = await appOfDeveloper(db, accountId, clientId);
  if (app.status === 'suspended') refuseSuspended(clientId);
  if (app.status !== 'active') refuse('APP_DISABLED', `The app ${clientId} is disabled.`);
  return app;
}

/** The id of one of the app's secrets; SECRET_NOT_FOUND for any other. */
export function secretOfApp(app: AppWithSecrets, secretId: string): string {
  const secret = app.secrets.find((candidate) => candidate.id === secretId);
  return secret ? secret.id : refuse('SECRET_NOT_FOUND', `The secret ${secretId} does not exist or is not yours.`);
}

/** Counts per kind, then per day (YYYY-MM-DD); a day with none is absent. */
export interface AppActivity {
  /** granted, withdrawn (by the player), ended (any other reason). */
  consents: Record<string, Record<string, number>>;
  /** pending, succeeded, failed: the deliveries made that day, by their status now. */
  deliveries: Record<string, Record<string, number>>;
}

export interface AppOverview {
  app: AppWithSecrets;
  failedDeliveries: DeliveryView[];
  activity: AppActivity;
}

function perDay(rows: { day: string; what: string; n: number }[]): Record<string, Record<string, number>> {
  const counts: Record<string, Record<string, number>> = {};
  for (const row of rows) counts[row.what] = { ...counts[row.what], [row.day]: row.n };
  return counts;
}

export interface AppRules {
  webhooks: WebhookSettings;
  /** The platform's cookie hosts: no redirect URI may point at them. */
  reservedHosts: readonly string[];
  /** For the consent.revoked events of an app deleted or losing a user scope. */
  pairwiseSecret: string;
}

/** The console's operations on a developer's apps, over these stores and rules. */
export function developerApps(
  prisma: PrismaClient,
  directory: AppChangeNotice,
  { webhooks, reservedHosts, pairwiseSecret }: AppRules,
) {
  const find = (accountId: string, clientId: string) => appOfDeveloper(prisma, accountId, clientId);
  const active = (accountId: string, clientId: string) => activeAppOfDeveloper(prisma, accountId, clientId);

  /** null (no endpoint) for an absent, null or empty value; the apps room's rules check the rest. */
  const webhookUrlOf = (value: unknown): string | null =>
    value === undefined || value === null || value === '' ? null : (value as string);
  const rules = { webhooks, reservedHosts };

  return {
    find,

    /** The developer's app, if it is active (APP_DISABLED, or APP_SUSPENDED by the platform, otherwise). */
    active,

    list: (accountId: string) => appsOfAccount(prisma, accountId),

    async create(actor: Actor, body: JsonBody): Promise<{ app: AppWithSecrets; clientSecret: string }> {
      // The JSON read here; the apps room's rules (rules.ts) check every member.
      return createApp(prisma, actor, {
        accountId: actor.accountId,
        name: body.name as string,
        redirectUris: body.redirect_uris === undefined ? [] : stringList(body.redirect_uris, 'redirect_uris'),
        scopes: stringList(body.scopes, 'scopes'),
        webhookUrl: webhookUrlOf(body.webhook_url),
        ...rules,
      });
    },

    /**
     * Changes any of name, redirect_uris, scopes and webhook_url under the creation rules. A removed
     * redirect URI stops matching on the next request. A removed scope is granted to no new token;
     * the consents that hold a removed user scope end (consent.revoked, reason scope_removed), so
     * their tokens stop on the next call and the player is asked again; app tokens already issued
     * keep a removed app scope until they expire. Events already queued keep their webhook URL.
     */
    /** Resolves with the app as edited and the scopes the edit removed. */
    async edit(
      actor: Actor,
      clientId: string,
      body: JsonBody,
    ): Promise<{ app: AppWithSecrets; removedScopes: string[] }> {
      if (Object.keys(body).length === 0) {
        refuseInput('Name at least one of name, redirect_uris, scopes, webhook_url (null removes the webhook URL).');
      }
      const changes: AppChanges = {
        ...(body.name !== undefined && { name: body.name as string }),
        ...(body.redirect_uris !== undefined && { redirectUris: stringList(body.redirect_uris, 'redirect_uris') }),
        ...(body.scopes !== undefined && { scopes: stringList(body.scopes, 'scopes') }),
        ...('webhook_url' in body && { webhookUrl: webhookUrlOf(body.webhook_url) }),
      };
      const app = await find(actor.accountId, clientId);
      return editApp(prisma, directory, actor, app.id, { ...changes, ...rules }, pairwiseSecret);
    },

    async rotateSecret(actor: Actor, clientId: string) {
      const app = await active(actor.accountId, clientId);
      return addSecret(prisma, directory, actor, app.id);
    },

    async revokeSecret(actor: Actor, clientId: string, secretId: string): Promise<void> {
      const app = await find(actor.accountId, clientId);
      await revokeSecret(prisma, directory, actor, app.id, secretOfApp(app, secretId));
    },

    /** Tokens of the app work again, those of its consents too (disabling ended none). */
    async enable(actor: Actor, clientId: string): Promise<AppWithSecrets> {
      const app = await find(actor.accountId, clientId);
      await enableApp(prisma, directory, actor, app.id);
      return find(actor.accountId, clientId);
    },

    /**
     * Deletes the app for good: its tokens stop on the next call, its consents end with
     * consent.revoked events (reason app_deleted, still delivered to its webhook URL), and its
     * client id is never used again.
     */
    async delete(actor: Actor, clientId: string): Promise<AppWithSecrets> {
      const app = await find(actor.accountId, clientId);
      await deleteApp(prisma, directory, actor, app.id, pairwiseSecret);
      return findAppWithSecrets(prisma, app.id);
    },

    async disable(actor: Actor, clientId: string): Promise<AppWithSecrets> {
      const app = await find(actor.accountId, clientId);
      await disableApp(prisma, directory, actor, app.id);
      return find(actor.accountId, clientId);
    },

    /**
     * What the app's page shows besides the app: its failed deliveries, and what happened per UTC
     * day since `since` (consents granted, withdrawn by their player, ended otherwise; webhook
     * deliveries by status).
     */
    async overview(accountId: string, clientId: string, since: Date): Promise<AppOverview> {
      const app = await find(accountId, clientId);
      const [failedDeliveries, consents, deliveries] = await Promise.all([
        listDeliveries(prisma, app.id, 'failed'),
        consentActivity(prisma, app.id, since),
        deliveriesPerDay(prisma, app.id, since),
      ]);
      return { app, failedDeliveries, activity: { consents: perDay(consents), deliveries: perDay(deliveries) } };
    },

    /** The app, and how many players have an active consent for it (its delete page says). */
    async withConsentCount(accountId: string, clientId: string) {
      const app = await find(accountId, clientId);
      return { app, activeConsents: await activeConsentCount(prisma, app.id) };
    },
  };
}
