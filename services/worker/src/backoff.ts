const dayMs = 24 * 60 * 60 * 1000;

/**
 * How long to wait after the `attempts`-th failed attempt: base * 2^(attempts-1), capped at a day,
 * then a uniformly random point between half and the whole of it, so receivers that failed together
 * are not retried together.
 */
export function retryDelayMs(attempts: number, baseMs: number, random: () => number = Math.random): number {
  const ceiling = Math.min(dayMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}
