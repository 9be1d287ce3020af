// Who may tell a listener the client's address and scheme: X-Forwarded-For, -Proto and -Host are
// the gateway's to set, and anyone's to forge when they reach a listener some other way.
import { BlockList, isIP } from 'node:net';
import type { Middleware } from 'koa';

export interface ForwardedTrust {
  /** The listener's URL is https: a TLS-terminating gateway is in front of it. */
  secure: boolean;
  /** TRUSTED_PROXIES: believe X-Forwarded-* from these peers alone; null: from any peer when secure. */
  trustedProxies?: readonly string[] | null;
}

const forwardedHeaders = ['x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'];

/** Whether a socket's peer is one of TRUSTED_PROXIES; null when none is configured. */
export type TrustedPeer = ((peer: string | undefined) => boolean) | null;

export function trustedPeer(trustedProxies: readonly string[] | null): TrustedPeer {
  if (trustedProxies === null) return null;
  const trusted = new BlockList();
  for (const entry of trustedProxies) {
    const [address = '', bits] = entry.split('/');
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) trusted.addAddress(address, family);
    else trusted.addSubnet(address, Number(bits), family);
  }
  return (peer) => isTrusted(trusted, peer);
}

/**
 * Koa's proxy flag for an app and, with a list of trusted proxies, the app's first middleware:
 * it drops X-Forwarded-* from every other peer, so Koa reads the socket's address and scheme.
 * `peer` tells whether a socket's peer is trusted (for the gateway's X-Request-ID).
 */
export function forwardedTrust({ secure, trustedProxies = null }: ForwardedTrust): {
  proxy: boolean;
  guard: Middleware | null;
  peer: TrustedPeer;
} {
  const peer = trustedPeer(trustedProxies);
  if (peer === null) return { proxy: secure, guard: null, peer };
  const guard: Middleware = (ctx, next) => {
    if (!peer(ctx.req.socket.remoteAddress)) {
      for (const name of forwardedHeaders) delete ctx.req.headers[name];
    }
    return next();
  };
  return { proxy: true, guard, peer };
}

function isTrusted(trusted: BlockList, peer: string | undefined): boolean {
  if (peer === undefined) return false;
  // A dual-stack socket reports an IPv4 peer as ::ffff:a.b.c.d.
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(peer)?.[1];
  if (mapped) return trusted.check(mapped, 'ipv4');
  return trusted.check(peer, isIP(peer) === 6 ? 'ipv6' : 'ipv4');
}
