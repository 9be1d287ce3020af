// CPU limits for the topology's processes, as a Kubernetes limit gives one: the kernel's CFS quota
// on a control group of the process's own (cgroup v1's cpu.cfs_quota_us, or v2's cpu.max), with
// the kubelet's period of 100 ms. A process over its share for a period is stalled until the next.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { alive } from './processes.ts';

/** The kubelet's CFS period (cpuCFSQuotaPeriod's default). */
export const cfsPeriodMicros = 100_000;

/** How often a limited process was held back, from its group's cpu.stat. */
export interface Throttling {
  /** Periods in which the process ran. */
  periods: number;
  /** Of those, the periods in which it used up its quota and was stalled. */
  throttled: number;
  /** The time it spent stalled, in seconds. */
  stalledSeconds: number;
}

export interface CpuLimit {
  /** The limit, in CPUs (0.2 = a fifth of one core per period). */
  cpus: number;
  /** The group's folder. */
  group: string;
  /** The file a process writes its own pid into to enter the group (`echo $$ > it`, then exec). */
  procsFile: string;
  /** The throttling so far; after `remove`, the last reading. */
  throttling(): Throttling;
  /** Removes the group (its processes must have exited); keeps the last reading. */
  remove(): void;
}

export interface CpuController {
  /** `cgroup v1 (/sys/fs/cgroup/cpu)`, `cgroup v2 (/sys/fs/cgroup)`. */
  describe: string;
  /** A group of its own for one process, limited to `cpus`. */
  limit(name: string, cpus: number): CpuLimit;
  /** Removes the topology's parent group, once every limit is removed. */
  close(): void;
}

/** Neither cgroup version could be written: the topology refuses to start, never runs unlimited. */
export class CpuLimitsUnavailable extends Error {
  override name = 'CpuLimitsUnavailable';
}

interface Mount {
  version: 1 | 2;
  path: string;
}

/** The cgroup mounts that can hold a CPU quota: v1's `cpu` hierarchy, or v2 with the cpu controller. */
function cpuMounts(): Mount[] {
  let mountinfo: string;
  try {
    mountinfo = readFileSync('/proc/self/mountinfo', 'utf8');
  } catch {
    return [];
  }
  const found: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    // mountinfo(5): fields, then " - ", then the type, the source and the super options.
    const [fields, rest] = line.split(' - ');
    const [type, , superOptions = ''] = rest?.split(' ') ?? [];
    const path = fields?.split(' ')[4];
    if (!path) continue;
    if (type === 'cgroup' && superOptions.split(',').includes('cpu')) found.push({ version: 1, path });
    if (type === 'cgroup2' && controllersOf(path).includes('cpu')) found.push({ version: 2, path });
  }
  // v1's cpu hierarchy first: where both are mounted (a hybrid host), the cpu controller is v1's.
  return found.sort((a, b) => a.version - b.version);
}

const controllersOf = (path: string) => {
  try {
    return readFileSync(join(path, 'cgroup.controllers'), 'utf8').trim().split(/\s+/);
  } catch {
    return [];
  }
};

/** The parent group of every topology's groups, and one per topology process beneath it. */
const parentName = 'devplat-topology';

/**
 * The CPU controller, with a group for this topology (`devplat-topology/<pid>`); groups left by
 * topologies that were killed are removed first. Throws CpuLimitsUnavailable, saying what was
 * tried, where neither v1 nor v2 can be written (not Linux, not root, no cpu controller).
 */
export function cpuController(): CpuController {
  const mounts = cpuMounts();
  const tried: string[] = [];
  for (const mount of mounts) {
    const parent = join(mount.path, parentName);
    const own = join(parent, String(process.pid));
    try {
      mkdirSync(parent, { recursive: true });
      if (mount.version === 2) {
        // v2 limits a group only where its parent hands the cpu controller down.
        writeFileSync(join(mount.path, 'cgroup.subtree_control'), '+cpu');
        writeFileSync(join(parent, 'cgroup.subtree_control'), '+cpu');
      }
      removeStaleGroups(parent);
      mkdirSync(own, { recursive: true });
      if (mount.version === 2) writeFileSync(join(own, 'cgroup.subtree_control'), '+cpu');
      return controllerAt(mount, own);
    } catch (error) {
      tried.push(`cgroup v${mount.version} at ${mount.path}: ${(error as Error).message}`);
    }
  }
  throw new CpuLimitsUnavailable(
    mounts.length
      ? `CPU limits need a writable cgroup CPU controller (run as root); ${tried.join('; ')}`
      : 'CPU limits need a cgroup CPU controller (cgroup v1 "cpu" or v2 with "cpu" in cgroup.controllers), and none is mounted',
  );
}

/** Groups of topologies whose process is gone (killed before they could remove them). */
function removeStaleGroups(parent: string) {
  for (const name of readdirSync(parent)) {
    if (!/^\d+$/.test(name) || alive(Number(name))) continue;
    const group = join(parent, name);
    for (const child of readdirSync(group, { withFileTypes: true })) {
      if (child.isDirectory()) tryRemove(join(group, child.name));
    }
    tryRemove(group);
  }
}

function tryRemove(group: string) {
  try {
    rmdirSync(group);
  } catch {
    // still has a process: left for the next start
  }
}

function controllerAt(mount: Mount, own: string): CpuController {
  return {
    describe: `cgroup v${mount.version} (${mount.path})`,
    limit(name, cpus) {
      if (!(cpus > 0)) throw new RangeError(`a CPU limit must be above 0 (got ${cpus})`);
      const group = join(own, name);
      mkdirSync(group, { recursive: true });
      const quota = Math.max(1000, Math.round(cpus * cfsPeriodMicros));
      if (mount.version === 1) {
        writeFileSync(join(group, 'cpu.cfs_period_us'), String(cfsPeriodMicros));
        writeFileSync(join(group, 'cpu.cfs_quota_us'), String(quota));
      } else {
        writeFileSync(join(group, 'cpu.max'), `${quota} ${cfsPeriodMicros}`);
      }
      let last: Throttling = { periods: 0, throttled: 0, stalledSeconds: 0 };
      const read = () => {
        if (existsSync(group)) last = throttlingOf(readFileSync(join(group, 'cpu.stat'), 'utf8'));
        return last;
      };
      return {
        cpus,
        group,
        procsFile: join(group, 'cgroup.procs'),
        throttling: read,
        remove() {
          read();
          tryRemove(group);
        },
      };
    },
    close: () => tryRemove(own),
  };
}

/** cpu.stat: v1 counts the stalls in ns (throttled_time), v2 in µs (throttled_usec). */
export function throttlingOf(stat: string): Throttling {
  const value = (key: string) => Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(stat)?.[1] ?? 0);
  return {
    periods: value('nr_periods'),
    throttled: value('nr_throttled'),
    stalledSeconds: value('throttled_time') / 1e9 + value('throttled_usec') / 1e6,
  };
}

/** `0.2 CPU, throttled in 633 of 740 periods (12.4 s stalled)`. */
export function describeThrottling(cpus: number, { periods, throttled, stalledSeconds }: Throttling): string {
  return `${cpus} CPU, throttled in ${throttled} of ${periods} periods (${stalledSeconds.toFixed(1)} s stalled)`;
}
