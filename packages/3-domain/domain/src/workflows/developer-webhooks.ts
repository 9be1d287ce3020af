// A developer's webhook tools, as the console serves them, over the developer's own apps (another
// developer's app answers as one that does not exist): a test event, the deliveries, the replay of
// a failed one, and devplat listen's live feed (feed.ts).
import type { DeliveryStatus, DeliveryView } from '@devplat/contract';
import { isUuid, type PrismaClient } from '@devplat/db';
import type { KeyValueStore } from '@devplat/kv';
import { activeAppOfDeveloper, appOfDeveloper } from '../apps/developers.ts';
import type { Actor } from '../audit/store.ts';
import { listDeliveries, replayDelivery } from '../events/deliveries.ts';
import { type EventFeed, eventFeed } from '../events/feed.ts';
import { eventTimeOfApp } from '../events/store.ts';
import { refuseInput } from '../input.ts';
import { refuse } from '../refusal.ts';
import { sendTestWebhook } from './test-webhook.ts';

export interface AppListener {
  feed: EventFeed;
  /** Says, for `forSeconds`, that a devplat listen stream of the app is open. */
  listening(forSeconds: number): Promise<void>;
}

/** Set while a devplat listen stream of the app is open, on any console process. */
const listenerKey = (appId: string) => `console:listening:${appId}`;

const deliveryNotFound = (deliveryId: string): never =>
  refuse('DELIVERY_NOT_FOUND', `The delivery ${deliveryId} does not exist or is not yours.`);

/** The console's webhook tools, over this database and the store that says who is listening. */
export function developerWebhooks(prisma: PrismaClient, store: KeyValueStore) {
  return {
    /** A signed test consent.granted to the app's webhook URL, or to its devplat listen stream. */
    async sendTest(actor: Actor, clientId: string) {
      const app = await activeAppOfDeveloper(prisma, actor.accountId, clientId);
      const listening = (await store.getMany([listenerKey(app.id)]))[0] !== null;
      return sendTestWebhook(prisma, actor, app.id, { listening });
    },

    async deliveries(accountId: string, clientId: string, status?: string): Promise<DeliveryView[]> {
      if (status !== undefined && !['pending', 'succeeded', 'failed'].includes(status)) {
        refuseInput('status must be one of pending, succeeded, failed.');
      }
      const app = await appOfDeveloper(prisma, accountId, clientId);
      return listDeliveries(prisma, app.id, status as DeliveryStatus | undefined);
    },

    /**
     * devplat listen's feed of the app: from now, or after the event `lastEventId` names (Last-Event-ID
     * of a reconnection) when it is one of this app's; `listening` says a stream is open for the
     * app (to any console process) for a while, so a test event goes to it without a webhook URL.
     */
    async listen(accountId: string, clientId: string, lastEventId: string): Promise<AppListener> {
      const app = await appOfDeveloper(prisma, accountId, clientId);
      const signingSecret = app.webhookSigningSecret;
      if (!signingSecret) refuse('NO_WEBHOOK_URL', `The app ${app.clientId} has no webhook signing secret.`);
      const resumeAfter = isUuid(lastEventId) ? await eventTimeOfApp(prisma, app.id, lastEventId) : null;
      return {
        feed: eventFeed(prisma, { id: app.id, webhookSigningSecret: signingSecret }, resumeAfter),
        listening: (forSeconds) => store.put(listenerKey(app.id), '1', forSeconds),
      };
    },

    async replay(actor: Actor, deliveryId: string) {
      if (!isUuid(deliveryId)) deliveryNotFound(deliveryId);
      return (await replayDelivery(prisma, deliveryId, actor)) ?? deliveryNotFound(deliveryId);
    },
  };
}
