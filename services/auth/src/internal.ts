import type { Secrets } from '@devplat/config';
import { commonHeaders, type Logger, notFound, operation, problemErrors } from '@devplat/http';
import Router from '@koa/router';
import Koa from 'koa';

/** The public half of every signing key: what the api service verifies access tokens with. */
export function publicJwks(secrets: Secrets) {
  return { keys: secrets.signingKeys.map(({ kty, crv, kid, x }) => ({ kty, crv, kid, x, alg: 'EdDSA', use: 'sig' })) };
}

/**
 * The auth service's internal side on AUTH_INTERNAL_URL, for the api service only: GET /jwks.json.
 * No gateway routes here.
 */
export function buildInternalApp(secrets: Secrets, logger: Logger): Koa {
  const jwks = publicJwks(secrets);
  const router = new Router({ strict: true });
  operation(router, 'GET', '/jwks.json', (ctx) => {
    ctx.body = jwks;
    ctx.set('Cache-Control', 'max-age=300');
  });
  const app = new Koa();
  app.silent = true;
  app.use(commonHeaders()).use(problemErrors(logger)).use(router.routes()).use(notFound());
  return app;
}
