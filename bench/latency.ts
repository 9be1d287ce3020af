// Sequential calls to one URL, timed from the request to the last byte of the answer.

export interface Latency {
  samples: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  /** Of the last answer. */
  bytes: number;
  items: number | null;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;

/** One call: its status, body and milliseconds. */
export async function timedCall(url: string, headers: Record<string, string>) {
  const start = performance.now();
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, text, ms: performance.now() - start };
}

/** `warmUp` calls untimed, then `samples` timed, one after the other; any answer but 200 throws. */
export async function latencyOf(
  url: string,
  headers: Record<string, string>,
  { samples, warmUp = 3 }: { samples: number; warmUp?: number },
): Promise<Latency> {
  const times: number[] = [];
  let last = { status: 0, text: '', ms: 0 };
  for (let i = 0; i < warmUp + samples; i++) {
    last = await timedCall(url, headers);
    if (last.status !== 200) throw new Error(`${url} answered ${last.status}: ${last.text.slice(0, 300)}`);
    if (i >= warmUp) times.push(last.ms);
  }
  const sorted = times.toSorted((a, b) => a - b);
  const body = JSON.parse(last.text) as { data?: unknown };
  return {
    samples,
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.at(-1) ?? 0,
    bytes: Buffer.byteLength(last.text),
    items: Array.isArray(body.data) ? body.data.length : null,
  };
}
