// Random tokens for sessions and CSRF, and their constant-time comparison.
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** 256 random bits, base64url: 43 characters. */
export const randomToken = () => randomBytes(32).toString('base64url');

/** Equal tokens, compared in constant time; a missing one never matches. */
export function sameToken(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
