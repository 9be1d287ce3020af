// CPU time of processes, read from /proc: of a process and everything it started (a topology's
// replicas and gateway), and by command name (postgres, redis-server, nginx), so a row can say what
// it served per second of one core and what each tier spent on it (tiers.ts).
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

export interface ProcessCpu {
  parent: number;
  /** The command name (/proc/<pid>/stat's second field): `postgres`, `redis-server`, `nginx`, `node`. */
  name: string;
  /** CPU seconds used so far (user + system, every thread). */
  seconds: number;
}

/** Every live process; one that ended meanwhile is left out. */
export function processTable(): Map<number, ProcessCpu> {
  const found = new Map<number, ProcessCpu>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
    const close = stat.lastIndexOf(')');
    const fields = stat.slice(close + 2).split(' ');
    // Fields 4, 14 and 15 of proc(5), here 2 less (pid and name are gone).
    found.set(Number(entry), {
      parent: Number(fields[1]),
      name: stat.slice(stat.indexOf('(') + 1, close),
      seconds: (Number(fields[11]) + Number(fields[12])) / ticksPerSecond,
    });
  }
  return found;
}

/** `pid` and its descendants. */
export function treeOf(pid: number, table = processTable()): number[] {
  const inTree = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [each, { parent }] of table) {
      if (!inTree.has(each) && inTree.has(parent)) {
        inTree.add(each);
        grew = true;
      }
    }
  }
  return [...inTree];
}

/** CPU seconds used so far by these processes. */
export const cpuSecondsOf = (pids: number[], table = processTable()) =>
  pids.reduce((total, pid) => total + (table.get(pid)?.seconds ?? 0), 0);
