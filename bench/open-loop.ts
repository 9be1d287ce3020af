// Latency at an offered load: operations started at a constant rate whatever the answers' pace
// (an open loop), each timed from the moment it was due rather than from when it went out, so a
// stall is charged to every request that waited behind it (no coordinated omission). autocannon's
// rate options do not do this: with overallRate or connectionRate each connection still waits for
// its answer before it sends again and sends its quota for the second as fast as it can, so the
// requests due while every connection waits go out late and are timed from then (and its
// correction for that, recordValueWithExpectedInterval, is given 1/rate in seconds rounded up to
// 1 ms). Here an operation is due every 1/rate s; the timer wakes at most once a millisecond and
// starts every operation due by then; a request waits for a free connection of a bounded set when
// all are busy, still timed from when it was due. How late the generator itself started them is
// reported beside the latencies.
import { Agent } from 'undici';

/** Marks the end of one step of an operation: its latency since the step before (or since the operation was due). */
export type Lap = (step: string) => void;

export interface OpenLoopRound {
  rate: number;
  /** Operations due in the round. */
  due: number;
  /** Operations that failed or were answered other than as expected (not timed). */
  failed: number;
  /** The first failure's message. */
  firstFailure: string | null;
  /** Latencies in ms by step, and the whole operation's under `whole`, of the operations that succeeded. */
  latencies: Record<string, number[]>;
  /** How late the generator started operations, at its worst (ms). */
  worstLateness: number;
}

/** Above this many operations in flight the server has stopped answering: more are counted as failed, not sent. */
const maxInFlight = 5_000;

/** Starts `operation` `rate` times a second for `seconds` seconds, then waits for every one to end. */
export async function openLoop(
  rate: number,
  seconds: number,
  operation: (lap: Lap) => Promise<void>,
): Promise<OpenLoopRound> {
  const round: OpenLoopRound = {
    rate,
    due: Math.floor(rate * seconds),
    failed: 0,
    firstFailure: null,
    latencies: {},
    worstLateness: 0,
  };
  const interval = 1000 / rate;
  const running = new Set<Promise<void>>();
  const start = performance.now();
  const run = async (due: number) => {
    const laps: [string, number][] = [];
    let mark = due;
    const lap: Lap = (step) => {
      const now = performance.now();
      laps.push([step, now - mark]);
      mark = now;
    };
    try {
      await operation(lap);
      laps.push(['whole', performance.now() - due]);
      for (const [step, ms] of laps) {
        const values = round.latencies[step] ?? [];
        values.push(ms);
        round.latencies[step] = values;
      }
    } catch (error) {
      round.failed += 1;
      round.firstFailure ??= String(error);
    }
  };
  for (let next = 0; next < round.due; ) {
    const now = performance.now();
    for (; next < round.due && start + next * interval <= now; next += 1) {
      const due = start + next * interval;
      round.worstLateness = Math.max(round.worstLateness, now - due);
      if (running.size >= maxInFlight) {
        round.failed += 1;
        round.firstFailure ??= `more than ${maxInFlight} operations in flight`;
        continue;
      }
      const started = run(due).finally(() => running.delete(started));
      running.add(started);
    }
    const wait = start + next * interval - performance.now();
    if (next < round.due && wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  await Promise.all(running);
  return round;
}

/**
 * The open loop's connections: at most this many to each server, kept alive. Without a bound, a
 * stall of the machine opened a connection for each request that piled up behind it, and opening
 * them cost more than the requests: at 5,424 /cities a second the generator fell further behind
 * until more than 5,000 were in flight (docs/benchmarks.md). 64 carry 30,000 requests a second at
 * 2 ms each.
 */
const connections = new Agent({ connections: 64 });

/**
 * One HTTP request, its answer read whole; anything but 200 throws. Resolves with the answer's text.
 * Sent through undici's dispatcher with a handler of its own rather than request(): no body stream
 * per answer, so the generator spends less of the machine than the server it loads.
 */
export function sendOnce(
  url: string,
  { method, headers, body }: { method: 'GET' | 'POST'; headers: Record<string, string>; body?: string },
): Promise<string> {
  const { origin, pathname, search } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let status = 0;
    connections.dispatch(
      { origin, path: pathname + search, method, headers, ...(body !== undefined && { body }) },
      {
        onRequestStart: () => {},
        onResponseStart: (_controller, statusCode) => {
          status = statusCode;
        },
        onResponseData: (_controller, chunk) => {
          chunks.push(chunk);
        },
        onResponseEnd: () => {
          const text = Buffer.concat(chunks).toString('utf8');
          if (status === 200) resolve(text);
          else reject(new Error(`answered ${status}: ${text.slice(0, 300)}`));
        },
        onResponseError: (_controller, error) => reject(error),
      },
    );
  });
}

/** The 99th percentile of latencies in ms (unrounded; 0 for none). */
export const p99Of = (values: number[] = []) => {
  const sorted = values.toSorted((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(0.99 * sorted.length))] ?? 0;
};

/** Milliseconds as printed: one decimal under 10 ms. */
export const ms = (value: number) => `${value < 10 ? value.toFixed(1) : value.toFixed(0)} ms`;

/** One row's open loop as compared: its latencies of the operations answered, and how many failed. */
export interface OpenLoopRow {
  name: string;
  latencies: number[];
  failed: number;
}

/**
 * The line comparing a row's p99 with its floor's at the same rate, against the target of at most
 * twice. A p99 of the answers that came is no latency if some never came, or none did: then the
 * target is NOT MET, whatever the ratio.
 */
export function comparedAt(at: string, row: OpenLoopRow, floor: OpenLoopRow): string {
  const [mine, theirs] = [p99Of(row.latencies), p99Of(floor.latencies)];
  const unmet = [row, floor]
    .filter((each) => each.failed > 0 || each.latencies.length === 0)
    .map((each) => `${each.name}: ${each.failed} failed, ${each.latencies.length} answered`);
  const verdict = unmet.length ? `; NOT MET, ${unmet.join(', ')}` : mine > 2 * theirs ? '; not met' : '';
  return (
    `open loop at ${at}: ${row.name} p99 ${ms(mine)}, ${floor.name} p99 ${ms(theirs)} ` +
    `(${(mine / theirs).toFixed(1)}x) (target: at most 2x${verdict})`
  );
}
