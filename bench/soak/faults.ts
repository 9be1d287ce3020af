// The faults and their schedule. Each fault is injected while the load runs and recorded with its
// start and end; they run one at a time with a quiet gap between them, so that each one's failed
// requests can be told apart from the next one's. Cycle after cycle until the run's time is up:
// the first cycle in a fixed order (so a short run gets the most telling ones first), later ones
// shuffled by the seed; or (`once`) one cycle whatever its length. Each kind states its bound: how
// long after its start or end its failed requests may go on (docs/operating.md, "Fault bounds").
import { generateSigningKey, type SigningKey } from '@devplat/config';
import { untilApisHold } from '@devplat/test/key-rotation';
import { basicAuth } from '@devplat/test/oauth';
import type { ServiceName } from '@devplat/topology';
import { faultBounds, standbyLagMs } from './bounds.ts';
import type { Bound, FaultWindow, History } from './history.ts';
import type { SoakPlatform } from './platform.ts';
import type { Random } from './random.ts';

export interface Fault {
  name: string;
  /** About how long it takes here (2 cores): a fault is started only if it can end before the tail. */
  estimateMs: number;
  bound: Bound;
  inject(): Promise<string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function faultKinds(platform: SoakPlatform, random: Random): Fault[] {
  const { topology, redis, postgres } = platform;
  const bounds = faultBounds(redis.mode);
  const boundOf = (name: string): Bound => {
    const bound = bounds[name];
    if (!bound) throw new Error(`no bound is stated for "${name}" (bench/soak/bounds.ts)`);
    return bound;
  };
  const killReplica = (service: ServiceName): Fault => ({
    name: `SIGKILL a ${service} replica`,
    estimateMs: 5_000,
    bound: boundOf(`SIGKILL a ${service} replica`),
    async inject() {
      const victim = random.pick(topology.of(service));
      const started = Date.now();
      // stop() through the replica: the topology expects this exit and does not stop everything.
      await victim.stop('SIGKILL');
      await victim.start();
      return `${victim.name} SIGKILLed, ready again after ${Date.now() - started} ms`;
    },
  });
  let current: SigningKey = platform.signingKey;
  const keys = (...list: SigningKey[]) => JSON.stringify({ keys: list });
  /** A token the platform issued now, for untilApisHold to re-sign. */
  const platformToken = async () => {
    for (;;) {
      const answer = await fetch(`${platform.target.base}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: basicAuth(platform.target.app.clientId, platform.target.app.clientSecret),
        },
        body: 'grant_type=client_credentials',
      }).catch(() => null);
      if (answer?.status === 200) return ((await answer.json()) as { access_token: string }).access_token;
      await sleep(500);
    }
  };
  /** Two seconds of the fault proxy in front of PostgreSQL failing as `fail` makes it, then forwarding again. */
  const postgresFault = (name: string, fail: () => Promise<void>, done: string): Fault => ({
    name,
    estimateMs: 2_500,
    bound: boundOf(name),
    async inject() {
      await fail();
      await sleep(2_000);
      await postgres.proxy.restore();
      return `fault proxy ${done}`;
    },
  });
  const rolled = ['auth', 'api', 'worker', 'console'] as const;
  const failover: Fault[] = postgres.failover
    ? [
        {
          name: 'PostgreSQL failover',
          estimateMs: 12_000,
          bound: boundOf('PostgreSQL failover'),
          inject: () => (postgres.failover as NonNullable<typeof postgres.failover>)(standbyLagMs),
        },
      ]
    : [];
  return [
    {
      name: 'Redis primary SIGKILL, back as a replica',
      estimateMs: 15_000,
      bound: boundOf('Redis primary SIGKILL, back as a replica'),
      inject: () => redis.killPrimary(),
    },
    killReplica('auth'),
    postgresFault(
      'PostgreSQL stalled 2 s',
      () => postgres.proxy.hold(),
      'held every byte to PostgreSQL for 2 s, then delivered it',
    ),
    killReplica('api'),
    {
      name: 'Redis replicas frozen 4 s',
      estimateMs: 5_000,
      bound: boundOf('Redis replicas frozen 4 s'),
      inject: () => redis.freezeReplicas(4_000),
    },
    postgresFault(
      'PostgreSQL restarted',
      () => postgres.proxy.refuse(),
      'cut every connection and refused new ones for 2 s',
    ),
    ...failover,
    killReplica('console'),
    {
      name: 'signing-key rotation',
      estimateMs: 30_000,
      bound: boundOf('signing-key rotation'),
      async inject() {
        const next = generateSigningKey();
        const started = Date.now();
        // 1. publish: every auth replica serves both keys, still signing with the current one
        for (const replica of topology.of('auth')) {
          await topology.rollingRestart([replica], { SIGNING_KEYS: keys(current, next) });
        }
        // 2. every api replica holds the new key before a token signed with it can reach one
        const apis = topology.of('api').map((replica) => `http://127.0.0.1:${replica.ports.public}/developer/v1`);
        await untilApisHold(next, apis, await platformToken());
        // 3. sign with the new key; the old one stays published (retiring it waits out its tokens' 300 s)
        for (const replica of topology.of('auth')) {
          await topology.rollingRestart([replica], { SIGNING_KEYS: keys(next, current) });
        }
        current = next;
        return `kid ${next.kid} published, held by every api, signing (4 auth restarts, ${Date.now() - started} ms)`;
      },
    },
    killReplica('worker'),
    {
      name: 'rolling restart',
      estimateMs: rolled.length * 2 * 4_000,
      bound: boundOf('rolling restart'),
      async inject() {
        const replicas = rolled.flatMap((service) => topology.of(service));
        const codes = await topology.rollingRestart(replicas);
        return `${replicas.map((replica) => replica.name).join(', ')} one at a time (exit codes ${codes.join(' ')})`;
      },
    },
  ];
}

export interface Schedule {
  done: Promise<void>;
  /** Kinds a cycle had no time left for. */
  skipped: string[];
}

/** Quiet load before the first fault and after the last one (a share of a short run). */
export const quietMs = (durationMs: number) => ({
  warmup: Math.min(10_000, durationMs * 0.08),
  tail: Math.min(15_000, durationMs * 0.05),
});

export function runSchedule(
  history: History,
  kinds: Fault[],
  options: {
    durationMs: number;
    gapMs: number;
    random: Random;
    stopping: () => boolean;
    once: boolean;
    /** Run after each fault (the load's recheck of what was acknowledged before it). */
    after: (fault: FaultWindow) => Promise<void>;
    /** The load established: the first fault waits for it as well as for the warm-up. */
    established: Promise<void>;
  },
): Schedule {
  const { durationMs, gapMs, random, stopping, once, after, established } = options;
  const { warmup, tail } = quietMs(durationMs);
  const skipped: string[] = [];
  const done = (async () => {
    await Promise.all([sleep(warmup), established]);
    for (let cycle = 0; !once || cycle === 0; cycle++) {
      const order = cycle === 0 ? kinds : kinds.toSorted(() => random() - 0.5);
      let ran = 0;
      for (const kind of order) {
        if (stopping()) return;
        if (!once && history.now() + kind.estimateMs + tail > durationMs) {
          if (cycle === 0) skipped.push(kind.name);
          continue;
        }
        await after(await history.fault(kind.name, kind.bound, kind.inject));
        ran++;
        await sleep(gapMs);
      }
      if (ran === 0) return;
    }
  })();
  return { done, skipped };
}
