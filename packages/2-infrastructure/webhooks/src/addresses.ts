// Which IP addresses a webhook may reach. Anything that is not a public unicast address (private,
// loopback, link-local, CGNAT, multicast, unspecified, documentation, reserved) is refused, so a
// developer's webhook URL cannot be used to reach the platform's own network.
import { isIPv4, isIPv6 } from 'node:net';

export type AddressKind =
  | 'public'
  | 'private'
  | 'loopback'
  | 'link-local'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

interface Range {
  bytes: number[];
  bits: number;
  kind: AddressKind;
}

const range = (address: string, bits: number, kind: AddressKind): Range => ({
  bytes: (isIPv4(address) ? ipv4Bytes(address) : ipv6Bytes(address)) as number[],
  bits,
  kind,
});

// IANA IPv4 special-purpose registry, minus the globally reachable anycast entries.
const ipv4Ranges: Range[] = [
  range('0.0.0.0', 8, 'unspecified'),
  range('10.0.0.0', 8, 'private'),
  range('100.64.0.0', 10, 'shared (CGNAT)'),
  range('127.0.0.0', 8, 'loopback'),
  range('169.254.0.0', 16, 'link-local'),
  range('172.16.0.0', 12, 'private'),
  range('192.0.0.0', 24, 'reserved'),
  range('192.0.2.0', 24, 'reserved'),
  range('192.88.99.0', 24, 'reserved'),
  range('192.168.0.0', 16, 'private'),
  range('198.18.0.0', 15, 'reserved'),
  range('198.51.100.0', 24, 'reserved'),
  range('203.0.113.0', 24, 'reserved'),
  range('224.0.0.0', 4, 'multicast'),
  range('240.0.0.0', 4, 'reserved'),
];

// Only global unicast (2000::/3) is public; inside it, these blocks are not.
const ipv6GlobalExceptions: Range[] = [
  range('2001:db8::', 32, 'reserved'), // documentation
  range('2001::', 23, 'reserved'), // IETF protocol assignments, Teredo among them
  range('2002::', 16, 'reserved'), // 6to4: would tunnel to any IPv4 address
  range('3fff::', 20, 'reserved'), // documentation
];
const ipv6Outside: Range[] = [
  range('fc00::', 7, 'private'),
  range('fe80::', 10, 'link-local'),
  range('ff00::', 8, 'multicast'),
];
const globalUnicast = range('2000::', 3, 'public');
const ipv4Mapped = range('::ffff:0:0', 96, 'reserved');
const nat64 = range('64:ff9b::', 96, 'reserved');

function matches(bytes: number[], { bytes: prefix, bits }: Range): boolean {
  for (let bit = 0; bit < bits; bit += 8) {
    const width = Math.min(8, bits - bit);
    const mask = (0xff << (8 - width)) & 0xff;
    if (((bytes[bit / 8] as number) & mask) !== ((prefix[bit / 8] as number) & mask)) return false;
  }
  return true;
}

function ipv4Bytes(address: string): number[] {
  return address.split('.').map(Number);
}

/** 16 bytes of an IPv6 address (a trailing dotted quad and a zone id allowed), or null. */
function ipv6Bytes(address: string): number[] | null {
  const text = address.replace(/%.*$/, '');
  if (!isIPv6(text)) return null;
  let groups = text.split(':');
  const last = groups.at(-1) as string;
  if (last.includes('.')) {
    const [a, b, c, d] = ipv4Bytes(last) as [number, number, number, number];
    groups = [...groups.slice(0, -1), ((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
  }
  const gap = groups.indexOf('');
  if (gap !== -1) {
    const head = groups.slice(0, gap).filter(Boolean);
    const tail = groups.slice(gap + 1).filter(Boolean);
    groups = [...head, ...Array(8 - head.length - tail.length).fill('0'), ...tail];
  }
  return groups.flatMap((group) => {
    const value = Number.parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

function ipv4Kind(bytes: number[]): AddressKind {
  return ipv4Ranges.find((candidate) => matches(bytes, candidate))?.kind ?? 'public';
}

/** What kind of address this is; null when it is not an IP address at all. */
export function addressKind(address: string): AddressKind | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (isIPv4(bare)) return ipv4Kind(ipv4Bytes(bare));
  const bytes = ipv6Bytes(bare);
  if (bytes === null) return null;
  if (bytes.every((byte) => byte === 0)) return 'unspecified';
  if (bytes.slice(0, 15).every((byte) => byte === 0) && bytes[15] === 1) return 'loopback';
  // An IPv4 address wearing IPv6 clothes is judged as the IPv4 address it reaches.
  if (matches(bytes, ipv4Mapped) || matches(bytes, nat64)) return ipv4Kind(bytes.slice(12));
  if (matches(bytes, globalUnicast)) {
    return ipv6GlobalExceptions.find((candidate) => matches(bytes, candidate))?.kind ?? 'public';
  }
  return ipv6Outside.find((candidate) => matches(bytes, candidate))?.kind ?? 'reserved';
}

/**
 * Why a webhook may not connect to this address ("a private address"), or null when it may.
 * Loopback is allowed only with allowLoopback (a developer's local receiver in the sandbox).
 */
export function addressProblem(address: string, settings: { allowLoopback: boolean }): string | null {
  const kind = addressKind(address);
  if (kind === null) return 'an address that is not an IP address';
  if (kind === 'public' || (kind === 'loopback' && settings.allowLoopback)) return null;
  return `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address`;
}

/** `localhost` and its subdomains, which always name this machine (RFC 6761). */
export function isLocalhostName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}
