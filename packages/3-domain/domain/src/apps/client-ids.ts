// An app's client id: public, so not a secret (its secrets are made by @devplat/keys).
import { randomBytes } from 'node:crypto';

const base32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** svc_ followed by 26 characters of [a-z2-7]: 130 random bits. */
export function newClientId(): string {
  const bytes = randomBytes(26);
  let id = 'svc_';
  for (const byte of bytes) id += base32[byte & 31];
  return id;
}
