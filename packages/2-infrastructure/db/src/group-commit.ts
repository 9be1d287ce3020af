// Group commit for the per-request reads of a backing store: the calls that arrive in one
// event-loop turn share one round trip, sent at the end of that turn, and concurrent calls for the
// same key share its answer. One round trip is in flight at a time; calls that arrive meanwhile go
// out together when it returns. Every call is still answered by a round trip that starts after
// the call arrived, so a change committed before a call is seen by that call; only the number of
// round trips goes down under load (each one wakes another process, which on two shared cores
// costs more than the work it carries).
//
// With a timeout, a round trip that has not returned when its oldest call has waited that long
// fails its calls with DependencyUnavailableError and stops holding back the calls after it: they
// go out at once in a round trip of their own, bounded the same way, so no call waits longer than
// the timeout however long the store takes to answer (or never does).
import { DependencyUnavailableError } from '@devplat/errors';

interface Caller<V> {
  resolve(value: V): void;
  reject(error: unknown): void;
}

export interface GroupCommitOptions {
  /** Distinct keys in one round trip. */
  maxBatch?: number;
  /** How long a call may wait for its answer, in milliseconds; unbounded when absent. */
  timeoutMs?: number;
  /** What the reads go to, named by the DependencyUnavailableError of a timeout: "PostgreSQL". */
  dependency?: string;
}

/** Round trips of a plain statement (`query`): bounded as its statements are, failing as PostgreSQL. */
export const statementRoundTrips = (query: { timeoutMs: number }, maxBatch = 100): GroupCommitOptions => ({
  maxBatch,
  timeoutMs: query.timeoutMs,
  dependency: 'PostgreSQL',
});

/**
 * `read` answers a batch of distinct keys (at most `maxBatch`), one value per key in their order.
 * Returns the per-call reader.
 */
export function groupCommit<K, V>(
  read: (keys: K[]) => Promise<V[]>,
  { maxBatch = 100, timeoutMs, dependency = 'The backing store' }: GroupCommitOptions = {},
): (key: K) => Promise<V> {
  let waiting = new Map<K, Caller<V>[]>();
  /** When the oldest waiting call arrived (performance.now()); kept only with a timeout. */
  let oldestArrival = 0;
  let inFlight = false;
  let scheduled = false;

  // The read, or its timeout, whichever settles first; a read that times out runs on unobserved.
  const bounded = (keys: K[], deadline: number): Promise<V[]> => {
    if (timeoutMs === undefined) return read(keys);
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      const left = Math.max(0, deadline - performance.now());
      timer = setTimeout(() => reject(new DependencyUnavailableError(dependency)), left);
    });
    return Promise.race([read(keys), timedOut]).finally(() => clearTimeout(timer));
  };
  const run = async (batch: [K, Caller<V>[]][], deadline: number) => {
    try {
      const values = await bounded(
        batch.map(([key]) => key),
        deadline,
      );
      for (const [index, [, callers]] of batch.entries()) {
        for (const caller of callers) caller.resolve(values[index] as V);
      }
    } catch (error) {
      for (const [, callers] of batch) for (const caller of callers) caller.reject(error);
    }
  };
  const flush = () => {
    scheduled = false;
    if (inFlight || waiting.size === 0) return;
    const batch = [...waiting];
    waiting = new Map(batch.splice(maxBatch));
    inFlight = true;
    // Keys left for the next round trip keep the oldest arrival: their deadline can only be later.
    void run(batch, oldestArrival + (timeoutMs ?? 0)).finally(() => {
      inFlight = false;
      schedule();
    });
  };
  const schedule = () => {
    if (scheduled || waiting.size === 0) return;
    scheduled = true;
    setImmediate(flush);
  };

  return (key) =>
    new Promise<V>((resolve, reject) => {
      if (timeoutMs !== undefined && waiting.size === 0) oldestArrival = performance.now();
      const callers = waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
      schedule();
    });
}
