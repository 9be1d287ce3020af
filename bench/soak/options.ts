// The soak's command line, and what a run must show at least (stated, and printed with the run).
import { parseArgs } from 'node:util';
import type { Operation } from './history.ts';
import type { PostgresMode } from './postgres.ts';
import type { RedisMode } from './redis.ts';

export const usage =
  'usage: npm run soak -- [--redis sentinel|cluster] [--postgres single|sync|async] [--duration 10m|120s]\n' +
  '                      [--load N] [--faults cycle|once] [--seed N] [--chains N] [--record FILE]';

export interface SoakOptions {
  redis: RedisMode;
  postgres: PostgresMode;
  durationMs: number;
  /** The load's pace: 1 is about 17 requests a second. */
  level: number;
  /** cycle: every kind, cycle after cycle, until the time is up; once: every kind once, however long it takes. */
  faults: 'cycle' | 'once';
  seed: number;
  chains: number;
  /** Where to write what the checker read (the history holds no token), for a test to plant bugs in. */
  record?: string;
}

function durationOf(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(text.trim());
  if (!match) throw new Error(`--duration is a number with s, m or h (got "${text}")`);
  const unit = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 }[match[2] ?? 's'] as number;
  return Number(match[1]) * unit;
}

function oneOf<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw new Error(`--${name} is ${allowed.join(' or ')}`);
  return value as T;
}

/** Throws with the reason when the command line is wrong. */
export function soakOptions(args: string[]): SoakOptions {
  const { values } = parseArgs({
    args,
    options: {
      redis: { type: 'string', default: 'sentinel' },
      postgres: { type: 'string', default: 'single' },
      duration: { type: 'string', default: '10m' },
      load: { type: 'string', default: '1' },
      faults: { type: 'string', default: 'cycle' },
      seed: { type: 'string' },
      chains: { type: 'string', default: '16' },
      record: { type: 'string' },
    },
  });
  const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
  const chains = Number(values.chains);
  const level = Number(values.load);
  if (!Number.isInteger(seed)) throw new Error('--seed is a whole number');
  if (!Number.isInteger(chains) || chains < 1 || chains > 18) throw new Error('--chains is 1 to 18');
  if (!Number.isFinite(level) || level < 0.1 || level > 50) throw new Error('--load is a number from 0.1 to 50');
  return {
    redis: oneOf('redis', values.redis, ['sentinel', 'cluster'] as const),
    postgres: oneOf('postgres', values.postgres, ['single', 'sync', 'async'] as const),
    durationMs: durationOf(values.duration),
    level,
    faults: oneOf('faults', values.faults, ['cycle', 'once'] as const),
    seed,
    chains,
    ...(values.record ? { record: values.record } : {}),
  };
}

/**
 * The successes outside every fault window each operation must have: the main ones at least 10,
 * the rarer ones (a deliberate reuse, a revocation, each acknowledged write and its probe) at least 1.
 */
export const minimums: Partial<Record<Operation, number>> = {
  authorize: 10,
  code: 10,
  refresh: 10,
  me: 10,
  client_credentials: 10,
  cities: 10,
  console: 10,
  reuse: 1,
  revoke: 1,
  suspend: 1,
  unsuspend: 1,
  add_secret: 1,
  revoke_secret: 1,
  refused_app: 1,
};
