import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import {
  keyShape,
  matchesHash,
  matchingSecret,
  newClientSecret,
  newKey,
  newWebhookSigningSecret,
  secretHash,
} from '../src/index.ts';

const prefix = 'devplat_admin_';

describe('keys', () => {
  test('a new key is the prefix and 43 base62 characters, a different one each time', () => {
    const keys = Array.from({ length: 200 }, () => newKey(prefix));
    for (const key of keys) assert.match(key, /^devplat_admin_[0-9A-Za-z]{43}$/);
    assert.equal(new Set(keys).size, keys.length);
    // Every character of the alphabet turns up: no part of it is left out or favoured away.
    const seen = new Set(keys.flatMap((key) => [...key.slice(prefix.length)]));
    assert.equal(seen.size, 62);
  });

  test('a prefix that is not lower-case words each ended by "_" is refused', () => {
    for (const bad of ['', 'devplat', 'Devplat_', 'dev plat_', 'devplat__', '_devplat_', 'dev-plat_']) {
      assert.throws(() => newKey(bad), TypeError, JSON.stringify(bad));
    }
    assert.match(newKey('devplat_key_'), /^devplat_key_/);
  });

  test('only the SHA-256 is kept, and a key matches its own hash alone', () => {
    const key = newKey(prefix);
    const hash = secretHash(key);
    assert.equal(hash, createHash('sha256').update(key).digest('hex'));
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(matchesHash(key, hash), true);
    assert.equal(matchesHash(newKey(prefix), hash), false);
    assert.equal(matchesHash(`${key}x`, hash), false);
    for (const broken of ['', 'zz', hash.slice(0, 63), `${hash}00`]) assert.equal(matchesHash(key, broken), false);
  });

  test("what a log may say of a refused key: the prefix when it has it, the length, whether it is a key's form", () => {
    const key = newKey(prefix);
    assert.deepEqual(keyShape(key, prefix), { prefix, length: 57, wellFormed: true });
    assert.deepEqual(keyShape(`${key}!`, prefix), { prefix, length: 58, wellFormed: false });
    assert.deepEqual(keyShape('hunter2', prefix), { prefix: null, length: 7, wellFormed: false });
  });
});

describe("an operator token and a developer's API key", () => {
  test('neither has the shape of the other: each door tells them apart by the prefix alone', () => {
    const operator = newKey(prefix);
    const developer = newKey('devplat_key_');
    assert.equal(keyShape(operator, 'devplat_key_').wellFormed, false);
    assert.equal(keyShape(developer, prefix).wellFormed, false);
    assert.equal(keyShape(developer, 'devplat_key_').wellFormed, true);
    assert.equal(matchesHash(developer, secretHash(operator)), false);
  });
});

describe('secrets issued before this module keep verifying', () => {
  // Each kind's stored hash as the earlier code wrote it (SHA-256 of the UTF-8 text, lower-case
  // hex), written out here, so a change of the hash or of its text form fails this test.
  const issued = [
    [
      'an API key',
      'devplat_key_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg',
      'b2c683509f1f665e5a14fbfa7aa822c052b52daa24a6d1dafc217e3bcbc8ea91',
    ],
    [
      'an operator token',
      'devplat_admin_0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefg',
      '0e969e85caad289bbf7f9f44041ce4d773faf17a08e9383280104f7fa6673426',
    ],
    [
      'a client secret',
      'svs_b3BhcXVlIGNsaWVudCBzZWNyZXQgb2YgMjU2IGJpdHM',
      '4dafd59bef919b4e2aa686a16fa3c34e3b412cc54d61345ea8484f3420113776',
    ],
    [
      'a session token',
      'dps_c2Vzc2lvbiB0b2tlbiBvZiAyNTYgcmFuZG9tIGJpdHM',
      'dfa37de5d4b9568118117284ea6d1d50ccc9cf7359ec0bf9f2d79ac032417d03',
    ],
  ] as const;

  for (const [kind, secret, stored] of issued) {
    test(`${kind}: the same hash, and it matches`, () => {
      assert.equal(secretHash(secret), stored);
      assert.equal(matchesHash(secret, stored), true);
      assert.equal(matchingSecret(secret, [{ id: 'old', hash: stored }])?.id, 'old');
    });
  }
});

describe('client and webhook signing secrets', () => {
  test("a client secret is svs_ and 256 bits, base64url; a signing secret is Standard Webhooks' whsec_ and 24 bytes", () => {
    const secrets = Array.from({ length: 100 }, newClientSecret);
    for (const secret of secrets) assert.match(secret, /^svs_[A-Za-z0-9_-]{43}$/);
    assert.equal(new Set(secrets).size, secrets.length);
    const signing = newWebhookSigningSecret();
    assert.match(signing, /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from(signing.slice(6), 'base64').length, 24);
  });

  test("of an app's secrets, the one presented matches, whichever place it has; a stranger matches none", () => {
    const [first, second, third] = [newClientSecret(), newClientSecret(), newClientSecret()];
    const candidates = [first, second, third].map((secret, n) => ({ id: `s${n}`, hash: secretHash(secret) }));
    assert.equal(matchingSecret(first, candidates)?.id, 's0');
    assert.equal(matchingSecret(third, candidates)?.id, 's2');
    assert.equal(matchingSecret(newClientSecret(), candidates), null);
    assert.equal(matchingSecret(first, []), null);
  });
});
