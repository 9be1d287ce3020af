// A TCP proxy in front of a real PostgreSQL or Redis that a test tells how to fail: refuse new
// connections, stall (connections stay open, nothing is forwarded and what is sent meanwhile is lost,
// as on a hung server or a dead network path), hold (what clients send is kept and delivered late,
// as to a server that was frozen and runs its queue once it thaws), go deaf (requests reach the
// server, its answers are lost), cut every open connection, and come back. It can also be moved to
// another server, as a Service or DNS name moves to a promoted standby.
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export type FaultMode = 'forward' | 'refuse' | 'stall' | 'hold' | 'deaf';

export interface FaultProxy {
  /** The proxy's own port: point DATABASE_URL or REDIS_URL at 127.0.0.1 and this port. */
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  proxied(url: string): string;
  /** New connections are refused (nothing listens on the port) and open ones are cut. */
  refuse(): Promise<void>;
  /** Open and new connections stay up, but no byte passes either way; bytes sent meanwhile are lost. */
  stall(): Promise<void>;
  /** What clients send is kept, not forwarded, until restore() delivers it; answers still flow. */
  hold(): Promise<void>;
  /** What clients send reaches the server; what it answers is dropped. */
  deaf(): Promise<void>;
  /** Every open connection is reset; new ones are accepted as the mode says. */
  cut(): void;
  /**
   * New connections go to `port` on `host` (127.0.0.1 by default) from now on, and every open one
   * is reset, as when the address of a dead primary moves to its promoted standby.
   */
  moveTo(port: number, host?: string): void;
  /** Forward again: open connections carry bytes again, new ones are accepted. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startFaultProxy(target: { host?: string; port: number }): Promise<FaultProxy> {
  let upstreamAt = { host: target.host ?? '127.0.0.1', port: target.port };
  const pairs = new Set<Pair>();
  let mode: FaultMode = 'forward';

  // Bytes clients sent while held, per connection, in order.
  const held = new Map<Socket, Buffer[]>();
  const toServer = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (mode === 'hold') held.set(to, [...(held.get(to) ?? []), chunk]);
      else if (mode === 'forward' || mode === 'deaf') to.write(chunk);
    });
  };
  const toClient = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => {
      if (mode === 'forward' || mode === 'hold') to.write(chunk);
    });
  };
  const deliverHeld = () => {
    for (const [upstream, chunks] of held) {
      if (upstream.destroyed) continue;
      for (const chunk of chunks) upstream.write(chunk);
      if ([...pairs].every((pair) => pair.upstream !== upstream)) upstream.end();
    }
    held.clear();
  };
  const onConnection = (client: Socket) => {
    const upstream = connect(upstreamAt.port, upstreamAt.host);
    const pair = { client, upstream };
    pairs.add(pair);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => {});
      socket.on('close', () => {
        pairs.delete(pair);
        client.destroy();
        // A frozen server still has what the client sent before it went away, and runs it on thawing.
        if (held.has(upstream) && !upstream.destroyed) return;
        held.delete(upstream);
        upstream.destroy();
      });
    }
    toServer(client, upstream);
    toClient(upstream, client);
  };

  let server: Server = createServer(onConnection);
  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
  await listen(0);
  const { port } = server.address() as AddressInfo;

  const cut = () => {
    for (const { client, upstream } of pairs) {
      client.resetAndDestroy();
      upstream.destroy();
    }
    pairs.clear();
  };
  // A closed server cannot listen again: each comeback listens with a new one on the same port.
  const accept = async (next: FaultMode) => {
    mode = next;
    if (server.listening) return;
    server = createServer(onConnection);
    await listen(port);
  };
  const refuse = async () => {
    mode = 'refuse';
    const closed = new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
    cut(); // server.close() waits for open connections
    await closed;
  };
  return {
    port,
    proxied: (url) => {
      const parsed = new URL(url);
      parsed.hostname = '127.0.0.1';
      parsed.port = String(port);
      return parsed.href;
    },
    refuse,
    stall: () => accept('stall'),
    hold: () => accept('hold'),
    deaf: () => accept('deaf'),
    cut,
    moveTo: (port, host = '127.0.0.1') => {
      upstreamAt = { host, port };
      // No connection may stay on the old server: one still up there (a primary thought dead that is
      // not) would take writes the new one never sees.
      cut();
    },
    restore: async () => {
      await accept('forward');
      deliverHeld();
    },
    close: refuse,
  };
}
