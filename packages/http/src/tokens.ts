// Random tokens for sessions, CSRF and token ids, and their constant-time comparison.
import { randomFillSync, timingSafeEqual } from 'node:crypto';

// Random bytes are drawn from the CSPRNG 8 KiB at a time and each byte handed out once, as
// node:crypto's randomUUID does: one randomBytes(32) cost 6.6 µs unloaded and 9% of the token
// endpoint's CPU under load (a token id each), against 0.2 µs from the pool (docs/benchmarks.md).
const pool = Buffer.allocUnsafe(8 * 1024);
let used = pool.length;

/** `byteLength` random bytes (at most 8 KiB), base64url. */
export function randomBase64url(byteLength: number): string {
  if (used + byteLength > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const text = pool.toString('base64url', used, used + byteLength);
  used += byteLength;
  return text;
}

/** 256 random bits, base64url: 43 characters. */
export const randomToken = () => randomBase64url(32);

/** Equal tokens, compared in constant time; a missing one never matches. */
export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
