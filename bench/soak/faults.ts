// The faults and their schedule. Each fault is injected while the load runs and recorded with its
// start and end; they run one at a time with a quiet gap between them, so that each one's failed
// requests can be told apart from the next one's. Cycle after cycle until the run's time is up:
// the first cycle in a fixed order (so a short run gets the most telling ones first), later ones
// shuffled by the seed.
import { generateSigningKey, type SigningKey } from '@devplat/config';
import { untilApisHold } from '@devplat/test/key-rotation';
import { basicAuth } from '@devplat/test/oauth';
import type { ServiceName } from '@devplat/topology';
import type { History } from './history.ts';
import type { SoakPlatform } from './platform.ts';
import type { Random } from './random.ts';

export interface Fault {
  name: string;
  /** About how long it takes here (2 cores): a fault is started only if it can end before the tail. */
  estimateMs: number;
  inject(): Promise<string>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function faultKinds(platform: SoakPlatform, random: Random, durationMs: number): Fault[] {
  const { topology, redis, postgres } = platform;
  const killReplica = (service: ServiceName): Fault => ({
    name: `SIGKILL a ${service} replica`,
    estimateMs: 5_000,
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
  // A short run rolls the replicas the public API goes through; a long one rolls every service.
  /** Two seconds of the fault proxy in front of PostgreSQL failing as `fail` makes it, then forwarding again. */
  const postgresFault = (name: string, fail: () => Promise<void>, done: string) => ({
    name,
    estimateMs: 2_500,
    async inject() {
      await fail();
      await sleep(2_000);
      await postgres.restore();
      return `fault proxy ${done}`;
    },
  });
  const rolled = durationMs < 5 * 60_000 ? (['auth', 'api'] as const) : (['auth', 'api', 'worker', 'console'] as const);
  return [
    {
      name: 'Redis primary SIGKILL, back as a replica',
      estimateMs: 15_000,
      inject: () => redis.killPrimary(),
    },
    killReplica('auth'),
    postgresFault(
      'PostgreSQL stalled 2 s',
      () => postgres.hold(),
      'held every byte to PostgreSQL for 2 s, then delivered it',
    ),
    killReplica('api'),
    {
      name: 'Redis replicas frozen 4 s',
      estimateMs: 5_000,
      inject: () => redis.freezeReplicas(4_000),
    },
    postgresFault('PostgreSQL restarted', () => postgres.refuse(), 'cut every connection and refused new ones for 2 s'),
    {
      name: 'signing-key rotation',
      estimateMs: 30_000,
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
      async inject() {
        const replicas = rolled.flatMap((service) => topology.of(service));
        const codes = await topology.rollingRestart(replicas);
        return `${replicas.map((replica) => replica.name).join(', ')} one at a time (exit codes ${codes.join(' ')})`;
      },
    },
    killReplica('console'),
  ];
}

export interface Schedule {
  done: Promise<void>;
  /** Kinds a cycle had no time left for. */
  skipped: string[];
}

export function runSchedule(
  history: History,
  kinds: Fault[],
  options: { durationMs: number; gapMs: number; random: Random; stopping: () => boolean },
): Schedule {
  const { durationMs, gapMs, random, stopping } = options;
  const warmupMs = Math.min(10_000, durationMs * 0.08);
  const tailMs = Math.min(15_000, durationMs * 0.05);
  const skipped: string[] = [];
  const done = (async () => {
    await sleep(warmupMs);
    for (let cycle = 0; ; cycle++) {
      const order = cycle === 0 ? kinds : kinds.toSorted(() => random() - 0.5);
      let ran = 0;
      for (const kind of order) {
        if (stopping()) return;
        if (history.now() + kind.estimateMs + tailMs > durationMs) {
          if (cycle === 0) skipped.push(kind.name);
          continue;
        }
        await history.fault(kind.name, kind.inject);
        ran++;
        await sleep(gapMs);
      }
      if (ran === 0) return;
    }
  })();
  return { done, skipped };
}
