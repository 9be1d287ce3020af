// The console API's API key routes: create (the key in that answer only), list, revoke. A signed-in
// session alone may call them: an API key answers 403 SESSION_REQUIRED (context.ts).
import { refuse } from '@devplat/domain/refusal';
import { requestBody } from '@devplat/http';
import { apiKeyView, createdApiKeyView } from '../views.ts';
import { type ApiRoutes, actor, answer, who } from './context.ts';

export function apiKeyRoutes({ domain: { apiKeys }, signedIn }: ApiRoutes): void {
  signedIn(
    '/api-keys',
    {
      GET: async (ctx) =>
        answer(ctx, 200, { data: (await apiKeys.list(who(ctx).account.id)).map((row) => apiKeyView(row)) }),
      POST: async (ctx) => {
        answer(ctx, 201, createdApiKeyView(await apiKeys.create(actor(ctx), requestBody(ctx))));
      },
    },
    'session',
  );
  signedIn(
    '/api-keys/:keyId',
    {
      DELETE: async (ctx) => {
        const revoked = await apiKeys.revoke(actor(ctx), ctx.params.keyId);
        if (!revoked) refuse('API_KEY_NOT_FOUND', `The API key ${ctx.params.keyId} does not exist or is not yours.`);
        answer(ctx, 204);
      },
    },
    'session',
  );
}
