import { createHash } from 'node:crypto';

/** The identifier as the throttle counts it: trimmed and lower case, so 'Ada@Example.com ' is 'ada@example.com'. */
export function normaliseAccount(identifier: string): string {
  return identifier.trim().toLowerCase();
}

/** The store key of an account: a SHA-256 (hex), so no identifier is kept in clear in Redis. */
export function accountKey(identifier: string): string {
  return createHash('sha256').update(normaliseAccount(identifier)).digest('hex');
}
