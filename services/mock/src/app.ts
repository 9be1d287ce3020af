// The contract mock on MOCK_BASE_URL: the contract's paths and shapes with fixed example data, for
// developers without credentials. It has no trusted authorizer, so the bearer routes answer 401,
// and it issues no tokens (503, as the contract allows for token issuance that is not configured).
import { type Config, wirePrefix } from '@devplat/config';
import { apiVersion, capabilityKeys, disabledAreas } from '@devplat/contract';
import { apiApp, featureDisabled, type Logger, operation, ProblemError, requestObserver } from '@devplat/http';
import type { Metrics } from '@devplat/metrics';
import Router from '@koa/router';
import type Koa from 'koa';
import type { Middleware } from 'koa';

const exampleRegions = [
  {
    code: 'JP',
    name: 'Japan',
    region: 'Asia',
    cities: [
      { id: 'jp-osaka', availability: 'available' },
      { id: 'jp-tokyo', availability: 'available' },
    ],
  },
  { code: 'PT', name: 'Portugal', region: 'Europe', cities: [{ id: 'pt-lisbon', availability: 'closed_beta' }] },
];

const fixed =
  (body: unknown): Middleware =>
  (ctx) => {
    ctx.body = body;
  };

const noAuthorizer: Middleware = () => {
  throw new ProblemError(
    'INVALID_TOKEN',
    'This is the contract mock: it has no trusted authorizer, so no token is accepted.',
    {
      'WWW-Authenticate': 'Bearer realm="developer-platform-mock"',
    },
  );
};

const noTokens: Middleware = () => {
  throw new ProblemError('FEATURE_DISABLED', 'This is the contract mock: it issues and revokes no tokens.');
};

export function buildMockApp(config: Config, logger: Logger, metrics?: Metrics): Koa {
  const router = new Router({ prefix: wirePrefix, strict: true, sensitive: true });
  operation(router, '/capabilities', {
    GET: fixed({
      api_version: apiVersion,
      environment: 'sandbox',
      capabilities: Object.fromEntries(capabilityKeys.map((key) => [key, false])),
    }),
  });
  operation(router, '/regions', { GET: fixed({ api_version: apiVersion, data: exampleRegions, next_cursor: null }) });
  operation(router, '/status', {
    GET: fixed({
      api_version: apiVersion,
      environment: 'sandbox',
      status: 'sandbox',
      production_ready: false,
      platform: {
        overall: 'OPERATIONAL',
        updated_at: '2026-01-01T00:00:00.000Z',
        components: [{ code: 'api', status: 'OPERATIONAL' }],
      },
    }),
  });
  operation(router, '/cities', { GET: noAuthorizer });
  operation(router, '/me', { GET: noAuthorizer });
  operation(router, '/.well-known/oauth-authorization-server', { GET: noTokens });
  operation(router, '/oauth/token', { POST: noTokens });
  operation(router, '/oauth/revoke', { POST: noTokens });
  featureDisabled(router, disabledAreas);
  void config;
  return apiApp({ logger, observe: metrics && requestObserver(metrics, 'mock') }, router);
}
