// The console web UI's webhook buttons: the webhook URL, a test event, a delivery's replay.
import { actor, appAction, form, type WebRoutes } from './context.ts';

export function webhookPages(web: WebRoutes): void {
  const { apps, webhooks } = web.domain;
  appAction(web, '/webhook', async (ctx, clientId) => {
    const { webhook_url } = form(ctx).fields;
    await apps.edit(actor(ctx), clientId, { webhook_url: webhook_url || null });
    return webhook_url ? 'Saved the webhook URL.' : 'Removed the webhook URL.';
  });
  appAction(web, '/webhooks/test', async (ctx, clientId) => {
    const { deliveryId, eventId } = await webhooks.sendTest(actor(ctx), clientId);
    return deliveryId
      ? `Queued a signed test webhook (delivery ${deliveryId}).`
      : `Sent a signed test event (${eventId}) to devplat listen: the app has no webhook URL.`;
  });
  appAction(web, '/deliveries/:deliveryId/replay', async (ctx) => {
    const { deliveryId } = await webhooks.replay(actor(ctx), ctx.params.deliveryId as string);
    return `Queued the event again (delivery ${deliveryId}).`;
  });
}
