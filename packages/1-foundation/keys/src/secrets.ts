// Every opaque secret the platform makes, and how each is checked: API keys and operator tokens
// (a prefix, then 43 base62 characters), client secrets (`svs_`), webhook signing secrets
// (`whsec_`, the Standard Webhooks form), session tokens, CSRF tokens and token ids (base64url).
//
// - Made from the CSPRNG: 256 random bits (a webhook signing secret's 192, as Standard Webhooks
//   gives). A prefix says what the secret is: secret scanners such as GitHub's match on it, and a
//   person who meets one in a paste or a log can tell what leaked.
// - Kept as its SHA-256 in lower-case hex, never itself. A slow hash (scrypt) protects guessable
//   passwords; a 256-bit random secret cannot be guessed from its hash however fast the hash, and a
//   slow one would cost every request tens of milliseconds of CPU, a lever for anyone who can reach
//   the listener.
// - Compared in constant time, with every candidate, so timing says nothing about which matched.
import { createHash, randomBytes, randomFillSync, timingSafeEqual } from 'node:crypto';

// Random bytes are drawn from the CSPRNG 8 KiB at a time and each byte handed out once, as
// node:crypto's randomUUID does: one randomBytes(32) cost 6.6 µs unloaded and 9% of the token
// endpoint's CPU under load (a token id each), against 0.2 µs from the pool (docs/benchmarks.md).
const pool = Buffer.allocUnsafe(8 * 1024);
let used = pool.length;

/** `byteLength` random bytes (at most 8 KiB) from the pool, as text: no Buffer made on the way. */
function pooledText(byteLength: number, encoding: 'base64url' | 'base64'): string {
  if (used + byteLength > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString(encoding, used, used + byteLength);
  used += byteLength;
  return text;
}

/** `byteLength` random bytes (at most 8 KiB), base64url. */
export const randomBase64url = (byteLength: number): string => pooledText(byteLength, 'base64url');

/** 256 random bits, base64url: 43 characters (session and CSRF tokens). */
export const randomToken = (): string => randomBase64url(32);

/** A client secret: `svs_` and 256 random bits, base64url; shown to the developer once. */
export const newClientSecret = (): string => `svs_${randomBase64url(32)}`;

/** A Standard Webhooks signing secret: `whsec_` and the base64 of 24 random bytes. */
export const newWebhookSigningSecret = (): string => `whsec_${pooledText(24, 'base64')}`;

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 43 base62 characters: 43 × log2(62) ≈ 256 bits. */
const keyBodyLength = 43;
/** Lower-case words joined and ended by `_`, as `devplat_admin_`. */
const prefixPattern = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*_$/;
// The largest multiple of 62 a byte can hold: bytes from it up would favour the first characters.
const unbiased = 62 * 4;

/**
 * A key handed to a person (API keys, operator tokens): `prefix` then 43 random base62 characters,
 * with no `-` or `_`, so a double-click selects the whole key.
 */
export function newKey(prefix: string): string {
  if (!prefixPattern.test(prefix)) {
    throw new TypeError('a key prefix is lower-case letters and digits in words each ended by "_"');
  }
  let body = '';
  while (body.length < keyBodyLength) {
    for (const byte of randomBytes(keyBodyLength)) {
      if (byte < unbiased && body.length < keyBodyLength) body += base62[byte % 62];
    }
  }
  return prefix + body;
}

const digest = (secret: string): Buffer => createHash('sha256').update(secret, 'utf8').digest();

const sameDigest = (actual: Buffer, hash: string): boolean => {
  const expected = Buffer.from(hash, 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
};

/** What is kept of a secret: its SHA-256, in lower-case hex. */
export const secretHash = (secret: string): string => digest(secret).toString('hex');

/** Whether `secret` is the secret of `hash` (secretHash's form), compared in constant time. */
export const matchesHash = (secret: string, hash: string): boolean => sameDigest(digest(secret), hash);

/**
 * Which of the candidates' hashes, if any, the presented secret matches. Every candidate is
 * compared in constant time and none is skipped, so timing says nothing about which or whether one
 * matched.
 */
export function matchingSecret<T extends { hash: string }>(presented: string, candidates: readonly T[]): T | null {
  const actual = digest(presented);
  let match: T | null = null;
  for (const candidate of candidates) if (sameDigest(actual, candidate.hash)) match = candidate;
  return match;
}

/** Equal secrets held in the clear (a CSRF token), compared in constant time; a missing one never matches. */
export function sameSecret(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
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
    wellFormed: prefixed && body.length === keyBodyLength && /^[0-9A-Za-z]+$/.test(body),
  };
}
