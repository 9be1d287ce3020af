// The console API's webhook routes: a test event, the live event stream, deliveries and replays.
import { type ApiRoutes, actor, answer, onApp, who } from './context.ts';
import { streamEvents } from './event-stream.ts';

export function webhookRoutes({ domain: { webhooks }, logger, signedIn }: ApiRoutes): void {
  signedIn('/apps/:clientId/webhooks/test', {
    POST: onApp(webhooks.sendTest, 202, ({ deliveryId, eventId }) => ({ delivery_id: deliveryId, event_id: eventId })),
  });
  signedIn('/apps/:clientId/events', {
    GET: async (ctx) => {
      const { feed, listening } = await webhooks.listen(
        who(ctx).account.id,
        ctx.params.clientId,
        ctx.get('Last-Event-ID'),
      );
      streamEvents(ctx, feed, { logger, listening });
    },
  });
  signedIn('/apps/:clientId/deliveries', {
    GET: async (ctx) =>
      answer(ctx, 200, {
        data: await webhooks.deliveries(
          who(ctx).account.id,
          ctx.params.clientId,
          ctx.query.status as string | undefined,
        ),
      }),
  });
  signedIn('/deliveries/:deliveryId/replay', {
    POST: async (ctx) => {
      const { deliveryId } = await webhooks.replay(actor(ctx), ctx.params.deliveryId);
      answer(ctx, 202, { delivery_id: deliveryId });
    },
  });
}
