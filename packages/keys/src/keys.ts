// Opaque keys handed to people: a prefix that says what the key is (secret scanners such as
// GitHub's match on it, and a person who meets one in a paste or a log can tell what leaked), then
// 256 random bits in base62 (no `-` or `_`, so a double-click selects the whole key). Only the
// SHA-256 of a key is kept. A slow hash (scrypt) protects guessable passwords; a 256-bit random key
// cannot be guessed from its hash however fast the hash, and a slow one would cost every request
// tens of milliseconds of CPU, a lever for anyone who can reach the listener.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters: 43 × log2(62) ≈ 256 bits. */
const bodyLength = 43;
/** Lower-case words joined and ended by `_`, as `devplat_admin_`. */
const prefixPattern = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_$/;
// The largest multiple of 62 a byte can hold: bytes from it up would favour the first characters.
const unbiased = 62 * 4;

/** A new key: `prefix` then 43 random base62 characters. */
export function newKey(prefix: string): string {
  if (!prefixPattern.test(prefix)) {
    throw new TypeError('a key prefix is lower-case letters and digits in words each ended by "_"');
  }
  let body = '';
  while (body.length < bodyLength) {
    for (const byte of randomBytes(bodyLength)) {
      if (byte < unbiased && body.length < bodyLength) body += alphabet[byte % 62];
    }
  }
  return prefix + body;
}

/** What is kept of a key: its SHA-256, in lower-case hex. */
export const keyHash = (key: string): string => createHash('sha256').update(key, 'utf8').digest('hex');

/** Whether `key` is the key of `hash` (keyHash's form), compared in constant time. */
export function matchKey(key: string, hash: string): boolean {
  const expected = Buffer.from(hash, 'hex');
  const actual = createHash('sha256').update(key, 'utf8').digest();
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** All a log may say of a key that was refused: whether it has the prefix, its length, its form. */
export interface KeyShape {
  /** The expected prefix when the key starts with it, else null (nothing of a stranger's text is kept). */
  prefix: string | null;
  length: number;
  /** The prefix followed by exactly a key's body: a real key that is not (or no longer) accepted. */
  wellFormed: boolean;
}

export function keyShape(key: string, prefix: string): KeyShape {
  const prefixed = key.startsWith(prefix);
  const body = key.slice(prefix.length);
  return {
    prefix: prefixed ? prefix : null,
    length: key.length,
    wellFormed: prefixed && body.length === bodyLength && /^[0-9A-Za-z]+$/.test(body),
  };
}
