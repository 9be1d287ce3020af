// The internal JWKS app on the API stack: the contract's headers, its own cache lifetime, Problems.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateSigningKey } from '@devplat/config';
import { createLogger, listen, type RunningServer } from '@devplat/http';
import { buildInternalApp } from '../src/internal.ts';

let server: RunningServer;
const signingKeys = [generateSigningKey(), generateSigningKey()];
before(async () => {
  const secrets = { signingKeys, pairwiseSecret: 'p'.repeat(32), cookieKeys: ['c'.repeat(32)] };
  server = await listen(buildInternalApp(secrets, createLogger('silent', 'auth')).callback(), '127.0.0.1', 0);
});
after(() => server.close());

test('publishes the public half of every signing key, cacheable for five minutes', async () => {
  const response = await fetch(`${server.origin}/jwks.json`);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get('cache-control'), 'max-age=300');
  assert.match(response.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{32}$/);
  assert.equal(response.headers.get('x-service-api-version'), '1.0');
  const { keys } = (await response.json()) as { keys: Record<string, string>[] };
  assert.deepEqual(
    keys,
    signingKeys.map(({ kid, x }) => ({ kty: 'OKP', crv: 'Ed25519', kid, x, alg: 'EdDSA', use: 'sig' })),
  );
});

test('a wrong method is 405 with Allow and an unknown path 404, as Problems', async () => {
  const wrong = await fetch(`${server.origin}/jwks.json`, { method: 'POST' });
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers.get('allow'), 'GET, HEAD');
  assert.equal(wrong.headers.get('content-type'), 'application/problem+json');
  assert.equal(wrong.headers.get('cache-control'), 'no-store');
  const missing = await fetch(`${server.origin}/keys`);
  assert.equal(missing.status, 404);
  assert.equal(((await missing.json()) as { code: string }).code, 'NOT_FOUND');
});
