import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const base32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** svc_ followed by 26 characters of [a-z2-7]: 130 random bits. */
export function newClientId(): string {
  const bytes = randomBytes(26);
  let id = 'svc_';
  for (const byte of bytes) id += base32[byte & 31];
  return id;
}

/** A client secret: 256 random bits, shown to the developer once. */
export function newClientSecret(): string {
  return `svs_${randomBytes(32).toString('base64url')}`;
}

/** A Standard Webhooks signing secret: whsec_ and the base64 of 24 random bytes. */
export function newWebhookSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/** Secrets are 256-bit random values, so one SHA-256 is a sufficient, fast one-way hash. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Which stored hash, if any, the presented secret matches. Every candidate is compared in
 * constant time and none is skipped, so timing says nothing about which or whether one matched.
 */
export function matchSecret<T extends { hash: string }>(presented: string, candidates: T[]): T | null {
  const presentedHash = Buffer.from(hashSecret(presented), 'hex');
  let match: T | null = null;
  for (const candidate of candidates) {
    const stored = Buffer.from(candidate.hash, 'hex');
    if (stored.length === presentedHash.length && timingSafeEqual(stored, presentedHash)) match = candidate;
  }
  return match;
}
