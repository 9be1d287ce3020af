// CPU time of a process and everything it started (a topology's replicas and gateway), read from
// /proc, so a row can say what it served per second of one core: steadier than throughput on a
// shared machine, and what a platform team sizes replicas by.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

/** Parent and CPU ticks (user + system) of each live process; a process that ended meanwhile is left out. */
function processes(): Map<number, { parent: number; ticks: number }> {
  const found = new Map<number, { parent: number; ticks: number }>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue;
    }
    // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 4, 14 and 15 of proc(5), here 2 less (pid and name are gone).
    found.set(Number(name), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
  }
  return found;
}

/** CPU seconds used so far by `pid` and its descendants. */
export function treeCpuSeconds(pid: number): number {
  const all = processes();
  const inTree = new Set([pid]);
  let grew = true;
  while (grew) {
    grew = false;
    for (const [each, { parent }] of all) {
      if (!inTree.has(each) && inTree.has(parent)) {
        inTree.add(each);
        grew = true;
      }
    }
  }
  let ticks = 0;
  for (const each of inTree) ticks += all.get(each)?.ticks ?? 0;
  return ticks / ticksPerSecond;
}
