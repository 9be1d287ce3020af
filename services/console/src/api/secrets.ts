// The console API's client secret routes: rotate (issue a new one) and revoke.
import { type ApiRoutes, actor, answer } from './context.ts';

export function secretRoutes({ domain: { apps }, signedIn }: ApiRoutes): void {
  signedIn('/apps/:clientId/secrets', {
    POST: async (ctx) => {
      const { secretId, clientSecret } = await apps.rotateSecret(actor(ctx), ctx.params.clientId);
      answer(ctx, 201, { secret_id: secretId, client_secret: clientSecret });
    },
  });
  signedIn('/apps/:clientId/secrets/:secretId', {
    DELETE: async (ctx) => {
      await apps.revokeSecret(actor(ctx), ctx.params.clientId, ctx.params.secretId);
      answer(ctx, 204);
    },
  });
}
