// The console web UI's sandbox player page: the list (oldest first, a page at a time: "Next page"
// carries the cursor), create, disable and enable.
import { sendPage } from '@devplat/http';
import type { Context } from 'koa';
import { playerView } from '../views.ts';
import { actor, form, frame, refused, type WebRoutes, who } from './context.ts';
import { type PlayersPlace, playersPage, playersPlaceQuery } from './player-pages.ts';

/** The page of the list a request names: its cursor and limit, when given once. */
function placeOf(ctx: Context): PlayersPlace {
  const { cursor, limit } = ctx.query;
  return {
    cursor: typeof cursor === 'string' ? cursor : undefined,
    limit: typeof limit === 'string' ? limit : undefined,
  };
}

export function playerPages({ signedInRoute, domain: { players }, done, takeNotice }: WebRoutes): void {
  /** A page of the players as the page shows them: `query` is the request's (none: the first page). */
  const playerList = async (ctx: Context, query: Readonly<Record<string, unknown>> = {}) => {
    const page = await players.list(who(ctx).account.id, query);
    return { players: page.players.map(playerView), nextCursor: page.nextCursor };
  };
  for (const [verb, status] of [
    ['disable', 'disabled'],
    ['enable', 'active'],
  ] as const) {
    // The form's action carries the list's page it was on (cursor, limit), to go back to it: the
    // address is always /players, only its query comes from the request (checked when it is read).
    signedInRoute(`/players/:playerId/${verb}`, {
      POST: async (ctx) => {
        const player = await players.setStatus(actor(ctx), ctx.params.playerId as string, status);
        const notice =
          status === 'disabled'
            ? `Disabled ${player.username}: their tokens answer 403 ACCESS_DENIED from the next call, and they cannot sign in.`
            : `Enabled ${player.username} again.`;
        await done(ctx, `/players${playersPlaceQuery(placeOf(ctx))}`, notice);
      },
    });
  }
  signedInRoute('/players', {
    GET: async (ctx) => {
      const list = await playerList(ctx, ctx.query);
      const view = frame(who(ctx), 'Sandbox players', { notice: await takeNotice(ctx) });
      sendPage(ctx, 200, playersPage(view, who(ctx).session.csrf, list, placeOf(ctx)));
    },
    POST: async (ctx) => {
      const { fields } = form(ctx);
      const input = { username: fields.username, password: fields.password, display_name: fields.display_name };
      try {
        const player = await players.create(actor(ctx), input, ctx.ip);
        await done(ctx, '/players', `Created the sandbox player ${player.username}.`);
      } catch (error) {
        const { status, reason } = refused(ctx, error);
        const view = frame(who(ctx), 'Sandbox players', { error: reason });
        sendPage(ctx, status, playersPage(view, who(ctx).session.csrf, await playerList(ctx), {}, input));
      }
    },
  });
}
