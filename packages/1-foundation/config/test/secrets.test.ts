import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { generateSigningKey, loadConfig, resolveSecrets } from '../src/index.ts';

const scratch = mkdtempSync(join(tmpdir(), 'devplat-secrets-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

describe('secrets', () => {
  test('development secrets are generated once, kept private in DATA_DIR, and reused', () => {
    const config = loadConfig({ DATA_DIR: join(scratch, 'a') });
    const first = resolveSecrets(config);
    assert.equal(first.signingKeys.length, 1);
    assert.ok(first.pairwiseSecret.length >= 32);
    assert.ok(first.cookieKeys.every((key) => key.length >= 32));
    assert.equal(statSync(join(scratch, 'a', 'secrets.json')).mode & 0o777, 0o600);
    assert.deepEqual(resolveSecrets(config), first);
  });

  test('a generated signing key is a working Ed25519 key named by its thumbprint', () => {
    const key = generateSigningKey();
    assert.match(key.kid, /^[A-Za-z0-9_-]{43}$/);
    const signature = sign(null, Buffer.from('hello'), createPrivateKey({ key: { ...key }, format: 'jwk' }));
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: key.x }, format: 'jwk' });
    assert.ok(verify(null, Buffer.from('hello'), publicKey, signature));
  });

  test('settings from the environment win over generated ones', () => {
    const key = generateSigningKey();
    const config = loadConfig({
      DATA_DIR: join(scratch, 'b'),
      SIGNING_KEYS: JSON.stringify({ keys: [key] }),
      PAIRWISE_SECRET: 'q'.repeat(40),
    });
    const secrets = resolveSecrets(config);
    assert.deepEqual(secrets.signingKeys, [key]);
    assert.equal(secrets.pairwiseSecret, 'q'.repeat(40));
    assert.equal(secrets.cookieKeys.length, 1);
  });
});
