import { limits, notCanonical } from '@devplat/contract';

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Contract rule 8: https:// with a host, or http://127.0.0.1, http://[::1] or http://localhost on
 * any port; no fragment, no credentials, no wildcard; in canonical form. Returns why a URI is
 * refused, or null.
 */
function redirectUriProblem(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'is not an absolute URI';
  }
  if (uri.includes('#')) return 'must not carry a fragment';
  if (url.username || url.password) return 'must not carry credentials';
  if (uri.includes('*')) return 'must not contain a wildcard';
  if (url.protocol === 'http:' && !loopbackHosts.has(url.hostname)) {
    return 'may use http only on 127.0.0.1, [::1] or localhost';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https (or http on a loopback host)';
  return notCanonical(uri, url);
}

export function redirectUrisProblem(uris: string[]): string | null {
  if (uris.length > limits.maxRedirectUris) return `at most ${limits.maxRedirectUris} redirect URIs may be registered`;
  if (new Set(uris).size !== uris.length) return 'redirect URIs must not repeat';
  for (const uri of uris) {
    const problem = redirectUriProblem(uri);
    if (problem) return `redirect URI ${JSON.stringify(uri)} ${problem}`;
  }
  return null;
}
