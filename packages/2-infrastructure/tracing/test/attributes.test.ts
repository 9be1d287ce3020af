import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { allowedAttributeKeys, looksSecret, sanitize } from '../src/index.ts';

const jwt = [
  Buffer.from('{"alg":"EdDSA","typ":"at+jwt"}').toString('base64url'),
  Buffer.from('{"sub":"ps_x","scope":"profile.basic.read"}').toString('base64url'),
  randomBytes(64).toString('base64url'),
].join('.');

describe('the attribute sanitizer', () => {
  test('drops every key that is not on the allowlist, whatever its value', () => {
    assert.deepEqual(
      sanitize({
        password: 'hunter2',
        client_secret: 'x',
        'http.request.header.authorization': 'Basic x',
        'url.full': 'http://a/b?c=d',
        'url.query': 'a=b',
        'db.query.parameters.0': 'x',
        'enduser.id': 'ada',
        'http.route': '/developer/v1/me',
      }),
      { 'http.route': '/developer/v1/me' },
    );
  });

  test('keeps the safe values of allowed keys: routes, statements, ids, numbers, booleans', () => {
    const safe = {
      'http.request.method': 'POST',
      'http.route': '/developer/v1/oauth/token',
      'error.type': 'DependencyUnavailableError',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
      'server.port': 5432,
      'db.system.name': 'postgresql',
      'db.operation.name': 'SELECT',
      'db.query.text':
        'SELECT "public"."App"."id", "public"."App"."clientId" FROM "public"."App" WHERE ("public"."App"."clientId" = $1 AND "token" = $2) LIMIT $3 OFFSET $4',
      'devplat.oauth.client_id': `svc_${'abcdefghijklmnopqrstuvwxyz'}`,
      'devplat.oauth.grant_type': 'authorization_code',
      'devplat.webhook.event_id': '3f2b8c1e-9a4d-4c1b-8e2f-1a2b3c4d5e6f',
      'devplat.webhook.attempt': 3,
      'devplat.webhook.event_type': 'consent.revoked',
    };
    assert.deepEqual(sanitize(safe), safe);
  });

  test('drops values that look like credentials, even under an allowed key', () => {
    const secrets = [
      jwt,
      `Bearer ${jwt}`,
      'Basic Y2xpZW50OnNlY3JldA==',
      `svs_${randomBytes(32).toString('base64url')}`,
      `sva_${randomBytes(32).toString('base64url')}`,
      `whsec_${randomBytes(24).toString('base64')}`,
      `grant.1.${randomBytes(24).toString('base64url')}`,
      randomBytes(32).toString('hex'),
      randomBytes(24).toString('base64'),
      'AbCdEfGhIjKlMnOpQrStUvWx',
      'postgresql://postgres:pa55word@db.internal:5432/platform',
      'redirect?code=abc&state=xyz',
      'password=hunter2',
      '{"client_secret":"abc"}',
      'token: abc',
    ];
    for (const value of secrets) {
      assert.equal(looksSecret(value), true, value);
      assert.deepEqual(sanitize({ 'devplat.oauth.error': value }), {}, value);
    }
  });

  test('drops values that are not strings, numbers or booleans, and numbers that are not finite', () => {
    assert.deepEqual(
      sanitize({
        'server.port': Number.NaN,
        'http.response.status_code': Number.POSITIVE_INFINITY,
        'http.route': undefined,
        'db.namespace': ['a'] as never,
      }),
      {},
    );
  });

  test('the allowlist names no secret', () => {
    for (const key of allowedAttributeKeys) {
      assert.doesNotMatch(key, /password|secret|token|authorization|cookie|header|query\.param|url\.(full|query|path)/);
    }
  });
});
