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
