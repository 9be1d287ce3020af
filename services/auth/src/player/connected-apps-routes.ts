// The player's connected apps at /account/connected-apps, and Remove access from it: the page
// shows the outcome of the last removal as a notice kept with the session.
import { DependencyUnavailableError } from '@devplat/errors';
import { type PageApp, readForm, sendPage, sessionFormValid } from '@devplat/http';
import { connectedAppsPath, type PlayerClient, type SignedInPlayer, signInFor } from './client.ts';
import { connectedApps, removeAccess } from './connected-apps.ts';
import { type ConnectedAppsView, connectedAppsPage, formRefusedPage } from './pages.ts';

export function connectedAppsOperations({ prisma, pairwiseSecret, provider, logger, sessions }: PlayerClient) {
  /** The page's view; reading it takes the notice of the last removal, shown once. */
  async function viewConnectedApps({ token, session, player }: SignedInPlayer): Promise<ConnectedAppsView> {
    const [apps, notice] = await Promise.all([connectedApps(prisma, player.id), sessions.store.takeNotice(token)]);
    return { playerName: player.displayName ?? player.username, apps, notice, csrf: session.csrf };
  }

  /** Removes the app's access and leaves a notice of it for the page. */
  async function removeConnectedApp({ token, player }: SignedInPlayer, clientId: string): Promise<void> {
    const appName = await removeAccess({ prisma, pairwiseSecret, provider, logger }, player.id, clientId);
    const notice =
      appName === null
        ? 'There was nothing to remove: that app has no access to your account.'
        : `Removed access for ${appName}.`;
    try {
      await sessions.store.notify(token, notice);
    } catch (error) {
      // The withdrawal stands whatever happens to the store now; only its confirmation is lost.
      if (!(error instanceof DependencyUnavailableError)) throw error;
      logger.error({ err: { name: (error as Error).name, message: (error as Error).message } }, 'notice not saved');
    }
  }

  return { viewConnectedApps, removeConnectedApp };
}

export function connectedAppsRoutes(route: PageApp['route'], client: PlayerClient) {
  const { signedInPlayer } = client;
  const { viewConnectedApps, removeConnectedApp } = connectedAppsOperations(client);

  route(connectedAppsPath, {
    GET: async (ctx) => {
      const signedIn = await signedInPlayer(ctx);
      if (!signedIn) return ctx.redirect(signInFor(connectedAppsPath));
      sendPage(ctx, 200, connectedAppsPage(await viewConnectedApps(signedIn)));
    },
  });

  route(`${connectedAppsPath}/remove`, {
    POST: async (ctx) => {
      const form = await readForm(ctx);
      const signedIn = await signedInPlayer(ctx);
      if (!signedIn) {
        ctx.status = 303;
        return ctx.redirect(signInFor(connectedAppsPath));
      }
      if (!sessionFormValid(signedIn.session, form.csrf)) {
        return sendPage(ctx, 403, formRefusedPage('This page has expired and nothing was removed. Open it again.'));
      }
      await removeConnectedApp(signedIn, form.client_id ?? '');
      ctx.status = 303;
      ctx.redirect(connectedAppsPath);
    },
  });
}
