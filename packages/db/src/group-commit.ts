// Group commit for the per-request reads of a backing store: the calls that arrive in one
// event-loop turn share one round trip, sent at the end of that turn, and concurrent calls for the
// same key share its answer. One round trip is in flight at a time; calls that arrive meanwhile go
// out together when it returns. Every call is still answered by a round trip that starts after
// the call arrived, so a change committed before a call is seen by that call; only the number of
// round trips goes down under load (each one wakes another process, which on two shared cores
// costs more than the work it carries).

interface Caller<V> {
  resolve(value: V): void;
  reject(error: unknown): void;
}

/**
 * `read` answers a batch of distinct keys (at most `maxBatch`), one value per key in their order.
 * Returns the per-call reader.
 */
export function groupCommit<K, V>(read: (keys: K[]) => Promise<V[]>, maxBatch = 100): (key: K) => Promise<V> {
  let waiting = new Map<K, Caller<V>[]>();
  let inFlight = false;
  let scheduled = false;

  const run = async (batch: [K, Caller<V>[]][]) => {
    try {
      const values = await read(batch.map(([key]) => key));
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
    void run(batch).finally(() => {
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
      const callers = waiting.get(key);
      if (callers) callers.push({ resolve, reject });
      else waiting.set(key, [{ resolve, reject }]);
      schedule();
    });
}
