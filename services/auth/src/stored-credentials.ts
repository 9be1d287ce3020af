// Authorization codes and refresh tokens are bearer credentials: with the app's secret, whoever
// holds one can use it. So the store keeps only their SHA-256, never the value a client presents:
// not in a key's name, not in a record, not in a payload. A Redis dump, backup or replica then
// opens nothing. A plain hash needs no key: the credentials are 256 (codes) and 192 (refresh
// tokens) random bits, so no value can be guessed and checked against it.
//
// The previous release kept them in the clear, and cannot read the hashed format. So there are two
// formats, and this file is the one place that knows what each writes:
// - hashed (the default): the credential's SHA-256 names it, and its payload is stored without it;
// - clear (CREDENTIALS_AT_REST=clear): the credential names itself and its payload is whole (jti
//   included), exactly as the previous release writes it, so that release's processes beside this
//   one keep working during a rolling release from it (docs/releasing.md).
// Both formats are always read, and the request that found an entry remembers in which, so that its
// consume or rotation works on the entry as it was written.
import type { CredentialFormat } from '@devplat/config';
import { secretHash } from '@devplat/keys';
import { currentRequest } from './token-request.ts';

export type { CredentialFormat };

/**
 * The name the store gives a credential in a format: in the clear, the credential itself; hashed,
 * its SHA-256 after `readable`, the part of it that is no secret (a refresh token's grant and rotation).
 */
export const storedName = (format: CredentialFormat, credential: string, readable = ''): string =>
  format === 'clear' ? credential : `${readable}${secretHash(credential)}`;

/** The payload without its jti, nor any other member holding the credential. */
export function withoutCredential<P extends Record<string, unknown>>(payload: P, credential: string): P {
  return Object.fromEntries(
    Object.entries(payload).filter(([name, value]) => name !== 'jti' && value !== credential),
  ) as P;
}

/** The payload as a format stores it: hashed without the credential (put back on reading), clear whole. */
export const storedPayload = <P extends Record<string, unknown>>(
  format: CredentialFormat,
  payload: P,
  credential: string,
): P => (format === 'clear' ? payload : withoutCredential(payload, credential));

// Per request, so nothing outlives it: the context is the provider's (AsyncLocalStorage).
const formats = new WeakMap<object, Map<string, CredentialFormat>>();

/** Remembers, for the rest of the request, in which format the credential's entry was found. */
export function noteFormat(credential: string, format: CredentialFormat): void {
  const request = currentRequest();
  if (!request) return;
  let found = formats.get(request);
  if (!found) {
    found = new Map();
    formats.set(request, found);
  }
  found.set(credential, format);
}

/** The format this request found the credential's entry in; undefined when it has not looked (or outside a request). */
export function formatFound(credential: string): CredentialFormat | undefined {
  const request = currentRequest();
  return request ? formats.get(request)?.get(credential) : undefined;
}
