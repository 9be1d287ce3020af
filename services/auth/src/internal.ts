import type { Secrets } from '@devplat/config';
import { apiApp, type Logger, operation, requestObserver } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import Router from '@koa/router';
import type Koa from 'koa';

/** The public half of every signing key: what the api service verifies access tokens with. */
export function publicJwks(secrets: Secrets) {
  return { keys: secrets.signingKeys.map(({ kty, crv, kid, x }) => ({ kty, crv, kid, x, alg: 'EdDSA', use: 'sig' })) };
}

/**
 * The auth service's internal side on AUTH_INTERNAL_URL, for the api service only: GET /jwks.json.
 * No gateway routes here.
 */
export function buildInternalApp(secrets: Secrets, logger: Logger, metrics?: Metrics): Koa {
  const jwks = publicJwks(secrets);
  const router = new Router({ strict: true });
  operation(router, '/jwks.json', {
    GET: (ctx) => {
      ctx.body = jwks;
      // Stands: the envelope sets its Cache-Control: no-store only where the handler set none.
      ctx.set('Cache-Control', 'max-age=300');
    },
  });
  return apiApp({ logger, observe: metrics && requestObserver(metrics, 'auth-internal') }, router);
}

/** Readiness: the keys this service signs with and publishes are loaded. */
export function signingKeysLoaded(secrets: Secrets): { name: string; check(): Promise<void> } {
  return {
    name: 'signing-keys',
    check: async () => {
      if (secrets.signingKeys.length === 0) throw new Error('no signing key is loaded');
    },
  };
}
