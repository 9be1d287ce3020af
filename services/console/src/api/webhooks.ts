// The console API's webhook routes: a test event, the live event stream, deliveries and replays.
import { ProblemError } from '@devplat/http';
import type { Context } from 'koa';
import { type ApiRoutes, actor, answer, who } from './context.ts';
import { streamEvents } from './event-stream.ts';
import { readJson } from './json.ts';

/** The deliveries' one filter, ?status=, given at most once; any other parameter is refused. */
function statusFilter(ctx: Context): string | undefined {
  const unknown = Object.keys(ctx.query).find((name) => name !== 'status');
  if (unknown !== undefined) throw new ProblemError('INVALID_REQUEST', `Unknown query parameter ${unknown}.`);
  const status = ctx.query.status;
  if (Array.isArray(status)) throw new ProblemError('INVALID_REQUEST', 'status may appear once.');
  return status;
}

export function webhookRoutes({ domain: { webhooks }, logger, signedIn }: ApiRoutes): void {
  signedIn('/apps/:clientId/webhooks/test', {
    POST: async (ctx) => {
      await readJson(ctx);
      const { deliveryId, eventId } = await webhooks.sendTest(actor(ctx), ctx.params.clientId);
      answer(ctx, 202, { delivery_id: deliveryId, event_id: eventId });
    },
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
        data: await webhooks.deliveries(who(ctx).account.id, ctx.params.clientId, statusFilter(ctx)),
      }),
  });
  signedIn('/deliveries/:deliveryId/replay', {
    POST: async (ctx) => {
      await readJson(ctx);
      const { deliveryId } = await webhooks.replay(actor(ctx), ctx.params.deliveryId);
      answer(ctx, 202, { delivery_id: deliveryId });
    },
  });
}
