// What the process table says (Linux's /proc; elsewhere it lists nothing), and the words for how a
// process ended.
import { existsSync, readdirSync, readFileSync } from 'node:fs';

const procfs = existsSync('/proc/self/stat');

export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
}

export function processTable(): ProcessEntry[] {
  let names: string[];
  try {
    names = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const entries: ProcessEntry[] = [];
  for (const name of names) {
    try {
      // The command name (field 2) may hold spaces and parentheses: the fields after it are counted from its end.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [, ppid, pgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      entries.push({ pid: Number(name), ppid: Number(ppid), pgid: Number(pgid) });
    } catch {
      // it exited while the table was read
    }
  }
  return entries;
}

export const childrenOf = (pid: number) =>
  processTable()
    .filter((entry) => entry.ppid === pid)
    .map((entry) => entry.pid);

/** Whether a process with this id is still running (a zombie, dead but not yet reaped, is not). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  if (!procfs) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

export function signal(pid: number | null, name: NodeJS.Signals): void {
  try {
    if (pid !== null) process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** `exited with code 1`, `was killed by SIGKILL`. */
export const describeExit = (code: number | null, signalName: NodeJS.Signals | null) =>
  signalName ? `was killed by ${signalName}` : `exited with code ${code}`;
