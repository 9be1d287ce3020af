// The processes the topology starts share its process group, so a signal to the group reaches every
// one. A SIGKILL to the topology's process alone leaves them with nobody to stop them: a watchdog
// process holds a pipe from the topology, is told of each process it starts and each exit, and when
// the pipe closes (the topology is gone, however it ended) stops the processes still running.
import { spawn } from 'node:child_process';
import type { Socket } from 'node:net';

export interface Watchdog {
  /** `signal` stops this process if the topology ends without having stopped it. */
  watch(pid: number, signal: NodeJS.Signals): void;
  unwatch(pid: number): void;
  /** Ends the watchdog, which first stops whatever is still watched; resolves once it has exited. */
  close(): Promise<void>;
}

const script = new URL('./watchdog-process.ts', import.meta.url).pathname;

export function startWatchdog(): Watchdog {
  const child = spawn(process.execPath, [script], { stdio: ['pipe', 'ignore', 'inherit'] });
  const pipe = child.stdin as unknown as Socket;
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  // Neither the watchdog nor its pipe keeps this process alive: it ends when this process does.
  child.unref();
  pipe.unref();
  pipe.on('error', () => {}); // a watchdog that died takes nothing else with it
  const send = (line: string) => {
    if (pipe.writable) pipe.write(`${line}\n`);
  };
  return {
    watch: (pid, signal) => send(`watch ${pid} ${signal}`),
    unwatch: (pid) => send(`unwatch ${pid}`),
    close: () => {
      child.ref();
      pipe.end();
      return exited;
    },
  };
}
