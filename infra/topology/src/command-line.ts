// The topology command's per-service settings: `--replicas api=4,auth=1` and `--cpu api=0.2,auth=0.2`.
import { cpus } from 'node:os';
import type { ServiceName } from './replica.ts';
import type { ReplicaCounts } from './topology.ts';

const scaled = ['auth', 'api', 'worker', 'console'] as const;
const limited = [...scaled, 'mock', 'admin'] as const;

/** `api=4,auth=1` → `{ api: 4, auth: 1 }`; throws a sentence naming the flag and what is wrong. */
function serviceValues<Name extends string>(flag: string, text: string, names: readonly Name[]) {
  const values: Partial<Record<Name, string>> = {};
  for (const pair of text.split(',')) {
    const [name = '', value, ...extra] = pair.split('=');
    if (!names.includes(name as Name) || value === undefined || value === '' || extra.length)
      throw new Error(
        `--${flag} takes service=value pairs separated by commas, a service one of ${names.join(', ')} (got "${pair}")`,
      );
    if (name in values) throw new Error(`--${flag} names ${name} twice`);
    values[name as Name] = value;
  }
  return values;
}

/** Replicas per service: auth and api at least 1 (the gateway routes to them), worker and console 0 or more. */
export function replicaCounts(text: string): Partial<ReplicaCounts> {
  const counts: Partial<ReplicaCounts> = {};
  for (const [name, value] of Object.entries(serviceValues('replicas', text, scaled))) {
    const count = Number(value);
    const least = name === 'auth' || name === 'api' ? 1 : 0;
    if (!Number.isInteger(count) || count < least || count > 16)
      throw new Error(`--replicas ${name} must be a whole number from ${least} to 16 (got "${value}")`);
    counts[name as keyof ReplicaCounts] = count;
  }
  return counts;
}

/** CPU limits per service, in CPUs: above 0 and at most the machine's cores (0.2 = a fifth of one). */
export function cpuLimits(text: string): Partial<Record<ServiceName, number>> {
  const limits: Partial<Record<ServiceName, number>> = {};
  const cores = cpus().length;
  for (const [name, value] of Object.entries(serviceValues('cpu', text, limited))) {
    const limit = Number(value);
    if (!(limit >= 0.01 && limit <= cores))
      throw new Error(`--cpu ${name} must be a number of CPUs from 0.01 to ${cores} (got "${value}")`);
    limits[name as ServiceName] = limit;
  }
  return limits;
}
