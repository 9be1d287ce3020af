// A replica takes no public call before it is ready. Open-source nginx (the topology's gateway)
// does not read /readyz: it sends to a replica the moment its port accepts, so a process that
// listened first would hold its first calls behind cold work (the pools' first connections, the
// auth service's key set): measured on the 2-core machine under load, a fresh api's first /cities
// took up to 3.6 s, past the 2 s bound of the key-set fetch, and was answered 503. So each service
// runs its readiness checks before it listens, until they pass or the bound is past.
import type { Logger } from './logger.ts';
import type { ReadinessCheck } from './management.ts';

/**
 * Runs `checks` until all pass, retrying with a growing pause (100 ms to 1 s), for at most
 * `withinMs` (10 s: as long as a supervisor waits for readiness before it gives up on a replica). Resolves true when they passed, false past the bound: the service then listens all
 * the same (its readiness says what is missing), with a warning naming the checks that failed.
 */
export async function warmUp(checks: ReadinessCheck[], logger: Logger, withinMs = 10_000): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  for (let pause = 100; ; pause = Math.min(pause * 2, 1_000)) {
    // A check that never answers (a store that takes the bytes and stays silent) ends at the bound.
    const results = await Promise.race([
      Promise.allSettled(checks.map((each) => each.check())),
      new Promise<null>((resolve) => setTimeout(resolve, Math.max(0, deadline - Date.now()), null).unref()),
    ]);
    const failed = checks
      .filter((_, index) => results === null || results[index]?.status === 'rejected')
      .map((each) => each.name);
    if (failed.length === 0) return true;
    if (Date.now() + pause > deadline) {
      logger.warn({ failed }, `listening before ready: ${failed.join(', ')} did not pass within ${withinMs} ms`);
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, pause));
  }
}
