import { absoluteUrl, limits, loopbackRedirectHosts, notCanonical } from '@devplat/contract';

/** True when a redirect URI is on one of the platform's cookie hosts (see redirectUriProblem). */
export function onReservedHost(uri: string, reservedHosts: readonly string[]): boolean {
  const url = URL.parse(uri);
  return url !== null && reservedHosts.includes(url.hostname.replace(/\.$/, ''));
}

/**
 * Contract rule 8: https:// with a host, or http://127.0.0.1, http://[::1] or http://localhost on
 * any port; no fragment, no credentials, no wildcard; in canonical form. And never on one of the
 * platform's cookie hosts (`reservedHosts`): a browser would carry the player's or developer's
 * session there (rule 9). Returns why a URI is refused, or null.
 */
function redirectUriProblem(uri: string, reservedHosts: readonly string[]): string | null {
  const absolute = absoluteUrl(uri, 'URI');
  if ('problem' in absolute) return absolute.problem;
  const { url } = absolute;
  if (uri.includes('*')) return 'must not contain a wildcard';
  if (url.protocol === 'http:' && !loopbackRedirectHosts.includes(url.hostname)) {
    return 'may use http only on 127.0.0.1, [::1] or localhost';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must use https (or http on a loopback host)';
  if (onReservedHost(uri, reservedHosts)) return "points at the platform's own sign-in host, which an app may not use";
  return notCanonical(uri, url);
}

export function redirectUrisProblem(uris: string[], reservedHosts: readonly string[] = []): string | null {
  if (uris.length > limits.maxRedirectUris) return `at most ${limits.maxRedirectUris} redirect URIs may be registered`;
  if (new Set(uris).size !== uris.length) return 'redirect URIs must not repeat';
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, reservedHosts);
    if (problem) return `redirect URI ${JSON.stringify(uri)} ${problem}`;
  }
  return null;
}
