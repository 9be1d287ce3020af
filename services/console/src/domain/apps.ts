// A developer's sandbox apps: creation, editing, the secret shown once, rotation, revocation,
// disabling, enabling, deletion (the webhook tools over them are webhooks.ts). A deleted app is gone from every list and
// answers as one that does not exist. An app the platform suspended is listed and shown, may be
// deleted and its secrets revoked, but nothing else (APP_SUSPENDED). Every operation is scoped to the signed-in account: another developer's app
// is answered exactly like one that does not exist.
import type { AppDirectory } from '@devplat/app-directory';
import type { WebhookSettings } from '@devplat/config';
import type { AppView, DeliveryView } from '@devplat/contract';
import type { PrismaClient } from '@devplat/db';
import {
  type AppChanges,
  type AppWithSecrets,
  activeAppOfDeveloper,
  addSecret,
  appOfDeveloper,
  appsOfAccount,
  createApp,
  deleteApp,
  disableApp,
  editApp,
  enableApp,
  findAppWithSecrets,
  revokeSecret,
  secretOfApp,
} from '@devplat/domain/apps';
import type { Actor } from '@devplat/domain/audit';
import { activeConsentCount, consentActivity } from '@devplat/domain/consents';
import { deliveriesPerDay, listDeliveries } from '@devplat/domain/events';
import { refuse as refuseAs } from '@devplat/domain/refusal';
import { isLocalWebhookUrl, webhookUrlProblem } from '@devplat/webhooks';
import { type JsonBody, refuse, requiredText, stringList } from './rules.ts';

export type { AppView };

export const appView = (app: AppWithSecrets): AppView => ({
  client_id: app.clientId,
  name: app.name,
  environment: app.environment,
  status: app.status,
  scopes: app.scopes,
  redirect_uris: app.redirectUris,
  webhook_url: app.webhookUrl,
  webhook_signing_secret: app.webhookSigningSecret,
  secrets: app.secrets
    .toSorted((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
    .map((secret) => ({
      secret_id: secret.id,
      created_at: secret.createdAt.toISOString(),
      status: secret.status,
      revoked_at: secret.revokedAt?.toISOString() ?? null,
    })),
  created_at: app.createdAt.toISOString(),
});

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

/** What to do instead, in the refusal of a URL on the developer's own machine. */
const listenHint = (url: string) =>
  ` (to receive events on your own machine, run: devplat listen <client_id> --forward-to ${url})`;

export function developerApps(
  prisma: PrismaClient,
  directory: AppDirectory,
  { webhooks, reservedHosts, pairwiseSecret }: AppRules,
) {
  const find = (accountId: string, clientId: string) => appOfDeveloper(prisma, accountId, clientId);
  const active = (accountId: string, clientId: string) => activeAppOfDeveloper(prisma, accountId, clientId);

  /** null (no endpoint) for an absent, null or empty value; otherwise a URL a webhook may go to. */
  const checkedWebhookUrl = (value: unknown): string | null => {
    if (value === undefined || value === null || value === '') return null;
    if (typeof value !== 'string') refuse('webhook_url must be a string or null.');
    const problem = webhookUrlProblem(value, webhooks);
    if (problem) {
      const hint = isLocalWebhookUrl(value, webhooks) ? listenHint(value) : '';
      refuseAs('WEBHOOK_URL_REFUSED', `webhook_url ${problem}${hint}.`);
    }
    return value;
  };

  return {
    find,

    /** The developer's app, if it is active (APP_DISABLED, or APP_SUSPENDED by the platform, otherwise). */
    active,

    list: (accountId: string) => appsOfAccount(prisma, accountId),

    async create(actor: Actor, body: JsonBody): Promise<{ app: AppWithSecrets; clientSecret: string }> {
      const name = requiredText(body.name, 'name', 100);
      const redirectUris = body.redirect_uris === undefined ? [] : stringList(body.redirect_uris, 'redirect_uris');
      const scopes = stringList(body.scopes, 'scopes');
      const webhookUrl = checkedWebhookUrl(body.webhook_url);
      // The apps room checks the redirect URIs (rule 8) and the scopes (the catalogue).
      return createApp(prisma, actor, {
        accountId: actor.accountId,
        name,
        redirectUris,
        scopes,
        webhookUrl,
        reservedHosts,
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
        refuse('Name at least one of name, redirect_uris, scopes, webhook_url (null removes the webhook URL).');
      }
      const changes: AppChanges = {
        ...(body.name !== undefined && { name: requiredText(body.name, 'name', 100) }),
        ...(body.redirect_uris !== undefined && { redirectUris: stringList(body.redirect_uris, 'redirect_uris') }),
        ...(body.scopes !== undefined && { scopes: stringList(body.scopes, 'scopes') }),
        ...('webhook_url' in body && { webhookUrl: checkedWebhookUrl(body.webhook_url) }),
      };
      const app = await find(actor.accountId, clientId);
      return editApp(prisma, directory, actor, app.id, { ...changes, reservedHosts }, pairwiseSecret);
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
export type DeveloperApps = ReturnType<typeof developerApps>;
