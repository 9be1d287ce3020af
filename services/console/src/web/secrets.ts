// The console web UI's client secret buttons: add a secret (shown once on the app's page), revoke one.
import { showApp } from './apps.ts';
import { actor, appAction, type WebRoutes } from './context.ts';

export function secretPages(web: WebRoutes): void {
  const { apps } = web.domain;
  web.signedInRoute('/apps/:clientId/secrets', {
    POST: async (ctx) => {
      const { clientSecret } = await apps.rotateSecret(actor(ctx), ctx.params.clientId as string);
      await showApp(web, ctx, { notice: 'Added a new client secret.', newSecret: clientSecret });
    },
  });
  appAction(web, '/secrets/:secretId/revoke', async (ctx, clientId) => {
    await apps.revokeSecret(actor(ctx), clientId, ctx.params.secretId as string);
    return 'Revoked the secret. Tokens obtained with it stop on their next use.';
  });
}
