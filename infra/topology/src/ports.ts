// Ports for local listeners come from below the kernel's ephemeral range (32768 and up), where
// nothing else picks one: a port taken from that range with listen(0) could be handed, before the
// process that is to bind it has started, to another process's outgoing connection (EADDRINUSE).
//
// A port is free only between this check and the moment the service binds it, seconds later; two
// processes of this machine (test files run in parallel, each starting services) could pick the
// same one in that time. So each pick is also reserved, by a file created exclusively under the
// temporary directory, for as long as the process that picked it lives.
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const firstPort = 20_000;
const portCount = 12_000;
const reservations = join(tmpdir(), 'devplat-ports');
/** A reservation left by a process that was killed is ignored after this long. */
const staleAfterMs = 60 * 60_000;
const mine = new Set<string>();
let prepared = false;

/** A port no listener holds on 127.0.0.1 and no other process of this machine has picked. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const port = firstPort + Math.floor(Math.random() * portCount);
    if (reserve(port)) {
      if (await bindable(port)) return port;
      release(port);
    }
    if (attempt >= 200) throw new Error('no free port below the ephemeral range');
  }
}

function reserve(port: number): boolean {
  const file = join(reservations, String(port));
  if (!prepared) {
    prepared = true;
    mkdirSync(reservations, { recursive: true });
    process.once('exit', () => {
      for (const each of mine) rmSync(each, { force: true });
    });
    removeStale();
  }
  try {
    writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  mine.add(file);
  return true;
}

function release(port: number) {
  const file = join(reservations, String(port));
  mine.delete(file);
  rmSync(file, { force: true });
}

function removeStale() {
  const now = Date.now();
  for (const name of readdirSync(reservations)) {
    const file = join(reservations, name);
    try {
      if (now - statSync(file).mtimeMs > staleAfterMs) rmSync(file, { force: true });
    } catch {
      // another process removed it first
    }
  }
}

function bindable(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
