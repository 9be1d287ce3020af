import { limits } from '@devplat/contract';

const loopbackHosts = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Contract rule 8: https:// with a host, or http://127.0.0.1, http://[::1] or http://localhost on
 * any port; no fragment, no credentials, no wildcard. Returns why a URI is refused, or null.
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
  if (url.protocol === 'https:') return url.hostname ? null : 'must name a host';
  if (url.protocol === 'http:') {
    return loopbackHosts.has(url.hostname) ? null : 'may use http only on 127.0.0.1, [::1] or localhost';
  }
  return 'must use https (or http on a loopback host)';
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
