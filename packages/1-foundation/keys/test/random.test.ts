// randomBase64url (src/secrets.ts): random bytes from a pool the CSPRNG refills, each byte handed
// out once, so no two ids share bytes however many the pool has given.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { randomBase64url, randomToken, sameSecret } from '../src/index.ts';

test('ids are the asked length, base64url, and never repeat across many refills of the pool', () => {
  const seen = new Set<string>();
  // 10,000 ids of 32 bytes and 10,000 of 24: 68 refills of the 8 KiB pool, ids straddling the refills.
  for (let n = 0; n < 20_000; n++) {
    const id = randomBase64url(n % 2 ? 32 : 24);
    assert.match(id, n % 2 ? /^[\w-]{43}$/ : /^[\w-]{32}$/);
    seen.add(id);
  }
  assert.equal(seen.size, 20_000);
});

test('the bytes of consecutive ids do not overlap: no byte is handed out twice', () => {
  const bytes = Buffer.concat(Array.from({ length: 600 }, () => Buffer.from(randomBase64url(30), 'base64url')));
  // 18,000 bytes: an 8-byte window repeated anywhere would mean a reused stretch of the pool.
  const windows = new Set<string>();
  for (let at = 0; at + 8 <= bytes.length; at += 8) windows.add(bytes.subarray(at, at + 8).toString('hex'));
  assert.equal(windows.size, Math.floor(bytes.length / 8));
});

test('a session token is 256 bits; tokens compare equal only to themselves', () => {
  const token = randomToken();
  assert.equal(Buffer.from(token, 'base64url').length, 32);
  assert.equal(sameSecret(token, token), true);
  assert.equal(sameSecret(token, randomToken()), false);
  assert.equal(sameSecret(token, undefined), false);
});
