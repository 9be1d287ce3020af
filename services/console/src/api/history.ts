// The console API's app history: GET /api/apps/{client_id}/history, newest first, a page at a time.
import { type ApiRoutes, answer, who } from './context.ts';

export function historyRoutes({ domain: { history }, signedIn }: ApiRoutes): void {
  signedIn('/apps/:clientId/history', {
    GET: async (ctx) => {
      const { entries, nextCursor } = await history.ofApp(who(ctx).account.id, ctx.params.clientId, ctx.query);
      answer(ctx, 200, { data: entries, next_cursor: nextCursor });
    },
  });
}
