// Registered URLs (redirect URIs, webhook URLs) are compared exactly, so they are accepted only in
// the form a parser writes them, the form a client's redirect_uri or a delivery will carry.

/** Why `value` is not written exactly as its parsed form (`parsed.href`), or null. */
export function notCanonical(value: string, parsed: URL): string | null {
  if (parsed.href === value) return null;
  if (/\s/.test(value)) return 'must not contain spaces';
  if (value.includes('\\')) return 'must not contain backslashes';
  // https:///cb and https:cb parse as https://cb/.
  if (!/^[a-z][a-z\d+.-]*:\/\/[^/?#]/i.test(value)) return 'must name a host';
  return `must be written exactly as ${parsed.href}`;
}

/**
 * The URL a registration names, or why it cannot be one: not absolute, or carrying a fragment or
 * credentials. The first rules of a webhook URL and of a redirect URI alike; `noun` is how the
 * refusal names it.
 */
export function absoluteUrl(text: string, noun: 'URL' | 'URI'): { url: URL } | { problem: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { problem: `is not an absolute ${noun}` };
  }
  if (text.includes('#')) return { problem: 'must not carry a fragment' };
  if (url.username || url.password) return { problem: 'must not carry credentials' };
  return { url };
}

/** Contract rule 8: the hosts on which a redirect URI may use http (on any port). */
export const loopbackRedirectHosts: readonly string[] = ['127.0.0.1', '[::1]', 'localhost'];

/** http on a host of rule 8 (loopbackRedirectHosts). The CLI runs it too, on Node 20: no URL.parse. */
export function isLoopbackHttp(uri: string): boolean {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' && loopbackRedirectHosts.includes(url.hostname);
  } catch {
    return false;
  }
}
