// The families the paging alerts read (infra/prometheus/alerts.yaml) that say how a process and
// what it depends on stand, rather than how its requests went: readiness as /readyz last found it,
// each store as its check last found it, the signing key's age, the webhook backlog and sign-in
// locks. Each is set where the fact is known, never on a request's path: readiness and stores by
// the readiness checks, the key and the backlog read when Prometheus scrapes, a lock when one
// starts. The key's and the backlog's families exist only in a process that watches them (auth,
// the worker), so no other process exports a 0 that reads as a fact.
import { Counter, Gauge, type Registry } from 'prom-client';

/** The stores a process depends on, as their readiness checks name them. */
export type Dependency = 'postgresql' | 'redis';

/** The webhook work that is due and not in hand, as the worker reads it. */
export interface OutboxReading {
  /** Events not yet turned into deliveries, and deliveries whose attempt is due and unclaimed. */
  due: number;
  /** Seconds the oldest of them has been due; null when none is. */
  oldestDueAgeSeconds: number | null;
}

/** The signing key in use: its kid (public: the JWKS names it) and its age, null while unknown. */
export interface SigningKeyReading {
  kid: string;
  ageSeconds: number | null;
}

export interface HealthMetrics {
  /** One readiness evaluation: sets devplat_ready and counts a change from the last one. */
  recordReadiness(ready: boolean): void;
  /** What a store's readiness check found: devplat_dependency_up{dependency}. */
  recordDependency(dependency: Dependency, up: boolean): void;
  /**
   * A sign-in door's count of locks started (the throttle's onLock), by kind: account or address.
   * Its two series start at 0, so the first lock is a rise Prometheus sees.
   */
  signInLocks(door: string): (kind: 'account' | 'address') => void;
  /** Reads the signing key's age whenever Prometheus scrapes (auth). */
  watchSigningKey(read: () => Promise<SigningKeyReading>): void;
  /** Reads the webhook backlog whenever Prometheus scrapes (the worker, while webhooks are on). */
  watchOutbox(read: () => Promise<OutboxReading>): void;
}

export function createHealthMetrics(registry: Registry): HealthMetrics {
  const registers = [registry];
  const ready = new Gauge({
    name: 'devplat_ready',
    help: 'Whether the last readiness evaluation (/readyz, or the scrape when no probe asked lately) found the process ready: 1 or 0.',
    registers,
  });
  const changes = new Counter({
    name: 'devplat_readiness_changes_total',
    help: 'Readiness changes between ready and not ready (the first evaluation is not one).',
    registers,
  });
  const dependencies = new Gauge({
    name: 'devplat_dependency_up',
    help: 'Whether the last readiness check of a store (postgresql, redis) answered in time: 1 or 0.',
    labelNames: ['dependency'],
    registers,
  });
  const locks = new Counter({
    name: 'devplat_sign_in_locks_total',
    help: 'Sign-in locks started, by door (player-sign-in, console-sign-in, player-create) and kind (account, address).',
    labelNames: ['door', 'kind'],
    registers,
  });
  let last: boolean | null = null;
  // Registered by the first watch; a later one (a second service on the same registry) takes over.
  let keyRead: (() => Promise<SigningKeyReading>) | null = null;
  let outboxRead: (() => Promise<OutboxReading>) | null = null;
  return {
    recordReadiness(now) {
      ready.set(now ? 1 : 0);
      if (last !== null && last !== now) changes.inc();
      last = now;
    },
    recordDependency: (dependency, up) => dependencies.set({ dependency }, up ? 1 : 0),
    signInLocks(door) {
      const kinds = { account: locks.labels(door, 'account'), address: locks.labels(door, 'address') };
      kinds.account.inc(0);
      kinds.address.inc(0);
      return (kind) => kinds[kind].inc();
    },
    watchSigningKey(read) {
      if (!keyRead) registerSigningKeyAge(registers, () => (keyRead as () => Promise<SigningKeyReading>)());
      keyRead = read;
    },
    watchOutbox(read) {
      if (!outboxRead) registerOutbox(registers, () => (outboxRead as () => Promise<OutboxReading>)());
      outboxRead = read;
    },
  };
}

function registerSigningKeyAge(registers: Registry[], read: () => Promise<SigningKeyReading>): void {
  new Gauge({
    name: 'devplat_signing_key_age_seconds',
    help: 'Seconds since the signing key (the first of SIGNING_KEYS) was first loaded by an auth process, by kid.',
    labelNames: ['kid'],
    registers,
    async collect() {
      const reading = await read().catch(() => null);
      this.reset();
      if (reading?.ageSeconds != null) this.set({ kid: reading.kid }, reading.ageSeconds);
    },
  });
}

function registerOutbox(registers: Registry[], read: () => Promise<OutboxReading>): void {
  // One read per scrape for both families: the registry collects them at the same time.
  let pending: Promise<OutboxReading | null> | null = null;
  const reading = () => {
    pending ??= read()
      .catch(() => null)
      .finally(() => {
        pending = null;
      });
    return pending;
  };
  new Gauge({
    name: 'devplat_outbox_backlog',
    help: 'Webhook work due and not in hand: events not yet turned into deliveries, and deliveries due and unclaimed.',
    registers,
    async collect() {
      const found = await reading();
      if (found) this.set(found.due);
    },
  });
  new Gauge({
    name: 'devplat_outbox_oldest_due_age_seconds',
    help: 'Seconds the oldest webhook work due and not in hand has waited (0 when none waits).',
    registers,
    async collect() {
      const found = await reading();
      if (found) this.set(found.oldestDueAgeSeconds ?? 0);
    },
  });
}
