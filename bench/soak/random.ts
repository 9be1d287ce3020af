// A seeded generator (mulberry32): the same --seed picks the same victims and the same load.
export interface Random {
  (): number;
  pick<T>(items: readonly T[]): T;
  /** A whole number of milliseconds around `ms` (±`spread`). */
  around(ms: number, spread?: number): number;
}

export function seeded(seed: number): Random {
  let state = seed >>> 0;
  const next = (() => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }) as Random;
  next.pick = (items) => items[Math.floor(next() * items.length)] as (typeof items)[number];
  next.around = (ms, spread = 0.3) => Math.round(ms * (1 - spread + 2 * spread * next()));
  return next;
}
