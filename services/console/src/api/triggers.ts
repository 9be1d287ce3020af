// POST /api/apps/{client_id}/triggers: devplat trigger's consent events (the domain's workflow
// consent-triggers.ts).
import { requestBody } from '@devplat/http';
import { type ApiRoutes, actor, answer } from './context.ts';

export function triggerRoutes({ domain: { triggers }, signedIn }: ApiRoutes): void {
  signedIn('/apps/:clientId/triggers', {
    POST: async (ctx) => {
      const body = requestBody(ctx);
      answer(ctx, 202, await triggers.trigger(actor(ctx), ctx.params.clientId, body));
    },
  });
}
