// The console web UI's sandbox player page: the list, create, disable and enable.
import { sendPage } from '@devplat/http';
import type { Context } from 'koa';
import { playerView } from '../domain/players.ts';
import { actor, form, frame, refused, type WebRoutes, who } from './context.ts';
import { playersPage } from './pages.ts';

export function playerPages({ signedInRoute, domain: { players }, done, takeNotice }: WebRoutes): void {
  const playerList = async (ctx: Context) => (await players.list(who(ctx).account.id)).map(playerView);
  for (const [verb, status] of [
    ['disable', 'disabled'],
    ['enable', 'active'],
  ] as const) {
    signedInRoute(`/players/:playerId/${verb}`, {
      POST: async (ctx) => {
        const player = await players.setStatus(actor(ctx), ctx.params.playerId as string, status);
        const notice =
          status === 'disabled'
            ? `Disabled ${player.username}: their tokens answer 403 ACCESS_DENIED from the next call, and they cannot sign in.`
            : `Enabled ${player.username} again.`;
        await done(ctx, '/players', notice);
      },
    });
  }
  signedInRoute('/players', {
    GET: async (ctx) => {
      const view = frame(who(ctx), 'Sandbox players', { notice: await takeNotice(ctx) });
      sendPage(ctx, 200, playersPage(view, who(ctx).session.csrf, await playerList(ctx)));
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
        sendPage(ctx, status, playersPage(view, who(ctx).session.csrf, await playerList(ctx), input));
      }
    },
  });
}
