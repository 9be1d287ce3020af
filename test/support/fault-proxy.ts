// A TCP proxy in front of a real PostgreSQL or Redis that a test tells how to fail: refuse new
// connections, stall (connections stay open, nothing is forwarded and what is sent meanwhile is lost,
// as on a hung server or a dead network path), cut every open connection, and come back.
import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';

export type FaultMode = 'forward' | 'refuse' | 'stall';

export interface FaultProxy {
  /** The proxy's own port: point DATABASE_URL or REDIS_URL at 127.0.0.1 and this port. */
  port: number;
  /** `url` with its host and port replaced by the proxy's. */
  proxied(url: string): string;
  /** New connections are refused (nothing listens on the port) and open ones are cut. */
  refuse(): Promise<void>;
  /** Open and new connections stay up, but no byte passes either way; bytes sent meanwhile are lost. */
  stall(): Promise<void>;
  /** Every open connection is reset; new ones are accepted as the mode says. */
  cut(): void;
  /** Forward again: open connections carry bytes again, new ones are accepted. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

interface Pair {
  client: Socket;
  upstream: Socket;
}

export async function startFaultProxy(target: { host?: string; port: number }): Promise<FaultProxy> {
  const host = target.host ?? '127.0.0.1';
  const pairs = new Set<Pair>();
  let mode: FaultMode = 'forward';

  const relay = (from: Socket, to: Socket) => {
    from.on('data', (chunk) => {
      if (mode === 'forward') to.write(chunk);
    });
  };
  const onConnection = (client: Socket) => {
    const upstream = connect(target.port, host);
    const pair = { client, upstream };
    pairs.add(pair);
    for (const socket of [client, upstream]) {
      socket.setNoDelay(true);
      socket.on('error', () => {});
      socket.on('close', () => {
        pairs.delete(pair);
        client.destroy();
        upstream.destroy();
      });
    }
    relay(client, upstream);
    relay(upstream, client);
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
    cut,
    restore: () => accept('forward'),
    close: refuse,
  };
}
