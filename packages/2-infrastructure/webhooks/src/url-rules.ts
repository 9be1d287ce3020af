// What may be an app's webhook endpoint. Checked when a developer sets the URL and again before
// every attempt (settings may have changed since); host names are checked once resolved, by the
// sender's lookup.
import { isIP } from 'node:net';
import { urlPort } from '@devplat/config';
import { absoluteUrl, notCanonical } from '@devplat/contract';
import { addressKind, addressProblem, isLocalhostName } from './addresses.ts';

const maxUrlLength = 2000;

export interface WebhookUrlSettings {
  allowLoopbackHttp: boolean;
  /** The ports the platform itself listens on: never a target on a loopback host. */
  ownPorts?: readonly number[];
}

/** The host without the brackets the URL syntax puts around an IPv6 literal. */
function bareHost(hostname: string): string {
  return hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
}

function isLoopbackHost(host: string): boolean {
  return isLocalhostName(host) || (isIP(host) !== 0 && addressKind(host) === 'loopback');
}

/**
 * Whether a URL is refused for pointing at the developer's own machine, or for being plain http
 * that only a loopback host may use: what `devplat listen --forward-to` takes instead. With
 * loopback http allowed, a loopback URL is never refused for that (only, say, for a platform port).
 */
export function isLocalWebhookUrl(url: string, settings: WebhookUrlSettings): boolean {
  if (!URL.canParse(url)) return false;
  const { protocol, hostname } = new URL(url);
  const loopback = isLoopbackHost(bareHost(hostname));
  if (settings.allowLoopbackHttp) return protocol === 'http:' && !loopback;
  return protocol === 'http:' || (protocol === 'https:' && loopback);
}

/**
 * Why a URL cannot be an app's webhook endpoint, or null: https with a host; plain http only to a
 * loopback host (127.0.0.0/8, [::1], localhost) and only when allowLoopbackHttp, and then not on a
 * port of the platform's own listeners (ownPorts); no credentials, no fragment; an IP-literal host
 * in a private, loopback (unless allowed), link-local, CGNAT, multicast, unspecified or reserved
 * range is refused (IPv4 and IPv6, incl. IPv4-mapped); only in canonical form.
 */
export function webhookUrlProblem(url: string, settings: WebhookUrlSettings): string | null {
  if (url.length > maxUrlLength) return `must be at most ${maxUrlLength} characters long`;
  const absolute = absoluteUrl(url, 'URL');
  if ('problem' in absolute) return absolute.problem;
  const parsed = absolute.url;
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'must use https';
  const host = bareHost(parsed.hostname);
  if (host === '') return 'must name a host';
  if (parsed.protocol === 'http:') {
    if (!settings.allowLoopbackHttp) return 'must use https';
    if (!isLoopbackHost(host)) return 'may use plain http only on a loopback host (127.0.0.1, [::1] or localhost)';
  }
  if (!settings.allowLoopbackHttp && isLocalhostName(host)) {
    return 'must not point at a loopback host';
  }
  if (isIP(host) !== 0) {
    const problem = addressProblem(host, { allowLoopback: settings.allowLoopbackHttp });
    if (problem) return `must not point at ${problem}`;
  }
  const port = urlPort(parsed) as number;
  if (isLoopbackHost(host) && settings.ownPorts?.includes(port)) {
    return `must not point at the platform's own port ${port}`;
  }
  return notCanonical(url, parsed);
}
