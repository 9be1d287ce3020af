// The console API's sandbox player routes: list, create, disable and enable.
import { playerView } from '../domain/players.ts';
import { type ApiRoutes, actor, answer, who } from './context.ts';
import { readJson } from './json.ts';

export function playerRoutes({ domain: { players }, signedIn }: ApiRoutes): void {
  signedIn('/sandbox-players', {
    GET: async (ctx) => answer(ctx, 200, { data: (await players.list(who(ctx).account.id)).map(playerView) }),
    POST: async (ctx) => answer(ctx, 201, playerView(await players.create(actor(ctx), await readJson(ctx), ctx.ip))),
  });
  for (const [verb, status] of [
    ['disable', 'disabled'],
    ['enable', 'active'],
  ] as const) {
    signedIn(`/sandbox-players/:playerId/${verb}`, {
      POST: async (ctx) => {
        await readJson(ctx);
        answer(ctx, 200, playerView(await players.setStatus(actor(ctx), ctx.params.playerId, status)));
      },
    });
  }
}
