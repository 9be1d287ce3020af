// CREDENTIALS_AT_REST: how the auth service writes codes and refresh tokens to Redis. `hashed` by
// default; `clear` only for the first roll from the release before hashing (docs/releasing.md).
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { productionEnv } from '@devplat/test/env';
import { ConfigError, credentialFormats, loadConfig } from '../src/index.ts';

describe('CREDENTIALS_AT_REST', () => {
  test('hashed unless set, in every environment', () => {
    assert.equal(loadConfig({}).credentialsAtRest, 'hashed');
    assert.equal(loadConfig({ CREDENTIALS_AT_REST: ' ' }).credentialsAtRest, 'hashed');
    assert.equal(loadConfig(productionEnv).credentialsAtRest, 'hashed');
  });

  test('clear or hashed, in production too (a roll there needs it)', () => {
    assert.deepEqual(credentialFormats, ['hashed', 'clear']);
    assert.equal(loadConfig({ CREDENTIALS_AT_REST: 'clear' }).credentialsAtRest, 'clear');
    assert.equal(loadConfig({ ...productionEnv, CREDENTIALS_AT_REST: 'clear' }).credentialsAtRest, 'clear');
    assert.equal(loadConfig({ CREDENTIALS_AT_REST: 'hashed' }).credentialsAtRest, 'hashed');
  });

  test('anything else is refused, naming the variable and the values it takes', () => {
    for (const bad of ['plain', 'Clear', 'sha256', 'true']) {
      assert.throws(
        () => loadConfig({ CREDENTIALS_AT_REST: bad }),
        (error) =>
          error instanceof ConfigError &&
          error.variable === 'CREDENTIALS_AT_REST' &&
          error.message === `CREDENTIALS_AT_REST must be one of hashed, clear (got "${bad}")`,
      );
    }
  });
});
