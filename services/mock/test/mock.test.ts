import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '@devplat/config';
import { createLogger, listen, type RunningServer } from '@devplat/http';
import { assertProblem, call } from '@devplat/test/http';
import { buildMockApp } from '../src/app.ts';

let server: RunningServer;
let base: string;
before(async () => {
  server = await listen(buildMockApp(loadConfig({}), createLogger('silent', 'mock')).callback(), '127.0.0.1', 0);
  base = `${server.origin}/developer/v1`;
});
after(() => server.close());

describe('the contract mock', () => {
  test('serves the public operations with fixed example data in the contract shapes', async () => {
    assert.equal((await call(base, '/capabilities')).status, 200);
    const regions = await call(base, '/regions');
    assert.equal(regions.json.data[0].code, 'JP');
    const status = await call(base, '/status');
    assert.equal(status.json.platform.overall, 'OPERATIONAL');
  });

  test('/cities and /me answer 401: the mock has no trusted authorizer', async () => {
    for (const path of ['/cities', '/me', '/cities?limit=5']) {
      const answer = await call(base, path, { headers: { authorization: 'Bearer anything' } });
      assertProblem(answer, 401, 'INVALID_TOKEN');
      assert.match(answer.headers.get('www-authenticate') ?? '', /^Bearer/);
    }
  });

  test('issues no tokens: token, revocation and metadata answer 503 Problem', async () => {
    assertProblem(await call(base, '/oauth/token', { method: 'POST' }), 503, 'FEATURE_DISABLED');
    assertProblem(await call(base, '/oauth/revoke', { method: 'POST' }), 503, 'FEATURE_DISABLED');
    assertProblem(await call(base, '/.well-known/oauth-authorization-server'), 503, 'FEATURE_DISABLED');
  });

  test('wrong methods and unknown paths answer like the platform', async () => {
    assertProblem(await call(base, '/me', { method: 'DELETE' }), 405, 'METHOD_NOT_ALLOWED');
    assertProblem(await call(base, '/nothing'), 404, 'NOT_FOUND');
  });
});
