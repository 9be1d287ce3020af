// The console API's client secret routes: rotate (issue a new one) and revoke.
import { type ApiRoutes, actor, answer, onApp } from './context.ts';

export function secretRoutes({ domain: { apps }, signedIn }: ApiRoutes): void {
  signedIn('/apps/:clientId/secrets', {
    POST: onApp(apps.rotateSecret, 201, ({ secretId, clientSecret }) => ({
      secret_id: secretId,
      client_secret: clientSecret,
    })),
  });
  signedIn('/apps/:clientId/secrets/:secretId', {
    DELETE: async (ctx) => {
      await apps.revokeSecret(actor(ctx), ctx.params.clientId, ctx.params.secretId);
      answer(ctx, 204);
    },
  });
}
