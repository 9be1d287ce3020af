// How long each fault may cost: its failed requests (503s, no answer) end at most this long after
// the fault's start or end. The soak fails a window past its bound (obligations.ts); the table in
// docs/operating.md ("Fault bounds") states the same, and its test holds the two together.
import type { Bound } from './history.ts';
import type { RedisMode } from './redis.ts';

/** How long the standby is held behind before the primary dies (a standby lagging under load). */
export const standbyLagMs = 1_000;

/** Nothing may fail: the gateway passes a request a replica did not take to another one. */
const nothingFails: Bound = { from: 'start', ms: 0 };

export function faultBounds(redis: RedisMode): Record<string, Bound> {
  return {
    // Sentinel: down-after (3 s), the election, and a replica linked to the new primary again (the
    // platform's writes wait for one replica's acknowledgement); Cluster: the node timeout (2 s),
    // the vote and the clients' slot refresh.
    'Redis primary SIGKILL, back as a replica': { from: 'start', ms: redis === 'sentinel' ? 7_000 : 8_000 },
    'SIGKILL a auth replica': nothingFails,
    'SIGKILL a api replica': nothingFails,
    'SIGKILL a worker replica': nothingFails,
    // A console write in flight at the kill answers 503: the gateway passes on no console write,
    // not all of them being safe to repeat; the next request goes to the other replica.
    'SIGKILL a console replica': { from: 'start', ms: 1_000 },
    // Refreshes and redemptions wait for a replica's acknowledgement (WAIT) until they thaw.
    'Redis replicas frozen 4 s': { from: 'end', ms: 1_000 },
    // Requests wait (no error) while PostgreSQL's bytes are held.
    'PostgreSQL stalled 2 s': { from: 'end', ms: 1_000 },
    // The pools reconnect.
    'PostgreSQL restarted': { from: 'end', ms: 3_000 },
    // The lag, the kill, the promotion, the address moved, the pools reconnected.
    'PostgreSQL failover': { from: 'start', ms: standbyLagMs + 5_000 },
    'signing-key rotation': nothingFails,
    'rolling restart': nothingFails,
    // A failover nobody asked for (Sentinel's own, on a busy machine): as the primary's death.
    'observed: Redis roles changed, unplanned': { from: 'start', ms: redis === 'sentinel' ? 7_000 : 8_000 },
  };
}
