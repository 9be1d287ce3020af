// A developer's sandbox apps: creation, the secret shown once, rotation, revocation, disabling, and
// the webhook tools. Every operation is scoped to the signed-in account: another developer's app
// is answered exactly like one that does not exist.
import { type AppDirectory, AppRuleError, addSecret, createApp, disableApp, revokeSecret } from '@devplat/apps';
import type { WebhookSettings } from '@devplat/config';
import type { AppView, DeliveryStatus, DeliveryView } from '@devplat/contract';
import { type Actor, type App, audit, type ClientSecret, isUuid, type PrismaClient } from '@devplat/db';
import {
  listDeliveries,
  replayDelivery,
  sendTestWebhook,
  WebhookRuleError,
  webhookUrlProblem,
} from '@devplat/webhooks';
import { ConsoleRefusal, refuse as refuseAs } from './refusals.ts';
import { knownFields, refuse, requiredText, stringList } from './rules.ts';

export type { AppView };

type AppWithSecrets = App & { secrets: ClientSecret[] };

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

const notFound = (what: string): never => refuseAs('NOT_FOUND', `${what} does not exist or is not yours.`);

/** Turns the registry's and the webhooks' refusals into the console's. */
async function ruled<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof AppRuleError || error instanceof WebhookRuleError) {
      throw new ConsoleRefusal(error.rule, error.message);
    }
    throw error;
  }
}

export interface AppRules {
  webhooks: WebhookSettings;
  /** The platform's cookie hosts: no redirect URI may point at them. */
  reservedHosts: readonly string[];
}

export function developerApps(prisma: PrismaClient, directory: AppDirectory, { webhooks, reservedHosts }: AppRules) {
  const find = async (accountId: string, clientId: string): Promise<AppWithSecrets> => {
    const app = await prisma.app.findUnique({ where: { clientId }, include: { secrets: true } });
    return app && app.accountId === accountId ? app : notFound(`The app ${clientId}`);
  };
  const active = async (accountId: string, clientId: string) => {
    const app = await find(accountId, clientId);
    if (app.status !== 'active') refuseAs('APP_DISABLED', `The app ${clientId} is disabled.`);
    return app;
  };

  /** null (no endpoint) for an absent, null or empty value; otherwise a URL a webhook may go to. */
  const checkedWebhookUrl = (value: unknown): string | null => {
    if (value === undefined || value === null || value === '') return null;
    if (typeof value !== 'string') refuse('webhook_url must be a string or null.');
    const problem = webhookUrlProblem(value, webhooks);
    if (problem) refuse(`webhook_url ${problem}.`);
    return value;
  };

  return {
    find,

    list: (accountId: string) =>
      prisma.app.findMany({ where: { accountId }, include: { secrets: true }, orderBy: { createdAt: 'asc' } }),

    async create(actor: Actor, input: unknown): Promise<{ app: AppWithSecrets; clientSecret: string }> {
      const body = knownFields(input, ['name', 'redirect_uris', 'scopes', 'webhook_url']);
      const name = requiredText(body.name, 'name', 100);
      const redirectUris = body.redirect_uris === undefined ? [] : stringList(body.redirect_uris, 'redirect_uris');
      const scopes = stringList(body.scopes, 'scopes');
      const webhookUrl = checkedWebhookUrl(body.webhook_url);
      // The registry checks the redirect URIs (rule 8) and the scopes (the catalogue).
      return ruled(() =>
        createApp(
          prisma,
          { accountId: actor.accountId, name, redirectUris, scopes, webhookUrl, reservedHosts },
          (tx, app) => audit(tx, actor, 'app.create', { type: 'app', id: app.id }, { client_id: app.clientId }),
        ),
      );
    },

    /** Sets or (null) removes the app's webhook endpoint; events already queued keep their URL. */
    async setWebhookUrl(actor: Actor, clientId: string, input: unknown): Promise<AppWithSecrets> {
      const body = knownFields(input, ['webhook_url']);
      if (!('webhook_url' in body)) refuse('webhook_url is required (a URL, or null to remove it).');
      const webhookUrl = checkedWebhookUrl(body.webhook_url);
      const app = await active(actor.accountId, clientId);
      return prisma.$transaction(async (tx) => {
        const updated = await tx.app.update({
          where: { id: app.id },
          data: { webhookUrl },
          include: { secrets: true },
        });
        const details = { client_id: clientId, webhook_url: webhookUrl };
        await audit(tx, actor, 'app.webhook_url', { type: 'app', id: app.id }, details);
        return updated;
      });
    },

    async rotateSecret(actor: Actor, clientId: string) {
      const app = await active(actor.accountId, clientId);
      return ruled(() =>
        addSecret(prisma, directory, app.id, (tx, secret) =>
          audit(tx, actor, 'secret.create', { type: 'client_secret', id: secret.id }, { client_id: clientId }),
        ),
      );
    },

    async revokeSecret(actor: Actor, clientId: string, secretId: string): Promise<void> {
      const app = await find(actor.accountId, clientId);
      const secret = isUuid(secretId) ? app.secrets.find((candidate) => candidate.id === secretId) : undefined;
      if (!secret) notFound(`The secret ${secretId}`);
      await revokeSecret(prisma, directory, app.id, secretId, (tx) =>
        audit(tx, actor, 'secret.revoke', { type: 'client_secret', id: secretId }, { client_id: clientId }),
      );
    },

    async disable(actor: Actor, clientId: string): Promise<AppWithSecrets> {
      const app = await find(actor.accountId, clientId);
      await disableApp(prisma, directory, app.id, (tx) =>
        audit(tx, actor, 'app.disable', { type: 'app', id: app.id }, { client_id: clientId }),
      );
      return find(actor.accountId, clientId);
    },

    async sendTestWebhook(actor: Actor, clientId: string) {
      const app = await active(actor.accountId, clientId);
      return ruled(() =>
        sendTestWebhook(prisma, app.id, (tx, sent) =>
          audit(tx, actor, 'webhook.test', { type: 'webhook_delivery', id: sent.deliveryId }, { client_id: clientId }),
        ),
      );
    },

    async deliveries(accountId: string, clientId: string, status?: string): Promise<DeliveryView[]> {
      if (status !== undefined && !['pending', 'succeeded', 'failed'].includes(status)) {
        refuse('status must be one of pending, succeeded, failed.');
      }
      const app = await find(accountId, clientId);
      return listDeliveries(prisma, app.id, status as DeliveryStatus | undefined);
    },

    /** The failed deliveries of an app already found (its page lists them). */
    failedDeliveries: (app: App) => listDeliveries(prisma, app.id, 'failed'),

    async replay(actor: Actor, deliveryId: string) {
      if (!isUuid(deliveryId)) notFound(`The delivery ${deliveryId}`);
      const replayed = await ruled(() => replayDelivery(prisma, deliveryId, actor));
      return replayed ?? notFound(`The delivery ${deliveryId}`);
    },
  };
}
export type DeveloperApps = ReturnType<typeof developerApps>;
