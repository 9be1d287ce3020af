// The console API's sandbox player routes: list (oldest first, a page at a time), create, disable
// and enable.
import { requestBody } from '@devplat/http';
import { playerView } from '../views.ts';
import { type ApiRoutes, actor, answer, who } from './context.ts';

export function playerRoutes({ domain: { players }, signedIn }: ApiRoutes): void {
  signedIn('/sandbox-players', {
    GET: async (ctx) => {
      const page = await players.list(who(ctx).account.id, ctx.query);
      answer(ctx, 200, { data: page.players.map(playerView), next_cursor: page.nextCursor });
    },
    POST: async (ctx) => answer(ctx, 201, playerView(await players.create(actor(ctx), requestBody(ctx), ctx.ip))),
  });
  for (const [verb, status] of [
    ['disable', 'disabled'],
    ['enable', 'active'],
  ] as const) {
    signedIn(`/sandbox-players/:playerId/${verb}`, {
      POST: async (ctx) => {
        answer(ctx, 200, playerView(await players.setStatus(actor(ctx), ctx.params.playerId, status)));
      },
    });
  }
}
