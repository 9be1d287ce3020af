// Ports for local listeners come from below the kernel's ephemeral range (32768 and up), where
// nothing else picks one: a port taken from that range with listen(0) could be handed, before the
// process that is to bind it has started, to another process's outgoing connection (EADDRINUSE).
import { createServer } from 'node:net';

const firstPort = 20_000;
const portCount = 12_000;

/** A port no listener holds on 127.0.0.1, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = firstPort + Math.floor(Math.random() * portCount);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return port;
    }
    if (attempt >= 100) throw new Error('no free port below the ephemeral range');
  }
}
