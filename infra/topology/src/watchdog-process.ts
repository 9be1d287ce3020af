// The watchdog's own process (watchdog.ts): reads `watch <pid> <signal>` and `unwatch <pid>` lines
// until its input closes, then signals each process still watched, and kills any left after 10 s.
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, signal } from './processes.ts';

const watched = new Map<number, NodeJS.Signals>();

// A Ctrl-C or a group's SIGTERM reaches this process too: it ends only after the topology has.
for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(name, () => {});

createInterface({ input: process.stdin })
  .on('line', (line) => {
    const [command, pid, name] = line.split(' ');
    if (command === 'watch') watched.set(Number(pid), name as NodeJS.Signals);
    else watched.delete(Number(pid));
  })
  .on('close', async () => {
    for (const [pid, name] of watched) signal(pid, name);
    const deadline = Date.now() + 10_000;
    while ([...watched.keys()].some(alive) && Date.now() < deadline) await sleep(100);
    for (const pid of watched.keys()) signal(pid, 'SIGKILL');
    process.exit(0);
  });
