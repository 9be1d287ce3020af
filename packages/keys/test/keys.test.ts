import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, test } from 'node:test';
import { keyHash, keyShape, matchKey, newKey } from '../src/index.ts';

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
    const hash = keyHash(key);
    assert.equal(hash, createHash('sha256').update(key).digest('hex'));
    assert.match(hash, /^[0-9a-f]{64}$/);
    assert.equal(matchKey(key, hash), true);
    assert.equal(matchKey(newKey(prefix), hash), false);
    assert.equal(matchKey(`${key}x`, hash), false);
    for (const broken of ['', 'zz', hash.slice(0, 63), `${hash}00`]) assert.equal(matchKey(key, broken), false);
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
    assert.equal(matchKey(developer, keyHash(operator)), false);
  });
});
