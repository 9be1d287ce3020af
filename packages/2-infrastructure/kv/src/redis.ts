import { DependencyUnavailableError } from '@devplat/errors';
import calculateSlot from 'cluster-key-slot';
import { Cluster, type ClusterOptions, Redis, type RedisOptions } from 'ioredis';
import { claimScript, singleUse, swapScript, undoClaimScript, undoMarkerKey, undoSwapScript } from './single-use.ts';
import type { KeyValueStore, StreamAppend, StreamRead } from './store.ts';
import { type RedisTopology, singleRedis } from './topology.ts';

export interface RedisStoreOptions {
  /** Prepended to every key. */
  prefix?: string;
  /** REDIS_TIMEOUT_MS (packages/1-foundation/config): the bound on a command and on a connection attempt. */
  timeoutMs: number;
  /** One server (the URL's), a Sentinel-watched primary, or a Cluster. */
  topology?: RedisTopology;
  /**
   * REDIS_WAIT_REPLICAS: how many replicas must have a claim (putIfAbsent with `durable`) before it
   * counts; 0 takes the primary's word.
   */
  waitReplicas?: number;
}

/** The ioredis client of a store: one connection (single, Sentinel) or a Cluster's. */
export type RedisClient = Redis | Cluster;
type Multi = ReturnType<RedisClient['multi']>;

// Kept off the KeyValueStore interface: only a few packages (such as throttle, which runs
// rate-limiter-flexible on it) need the client itself, and they reach it through redisClientOf.
const clients = new WeakMap<KeyValueStore, RedisClient>();
/** How many connections the writes that wait for replicas share (with REDIS_WAIT_REPLICAS). */
const durableConnections = 4;
const connections = new WeakMap<KeyValueStore, { pool: string; client: RedisClient }[]>();

/**
 * The ioredis client behind a store made by redisStore, with its key prefix, timeouts and failure
 * behaviour; null for any other store. Errors from commands sent on it directly are ioredis errors,
 * not DependencyUnavailableError: the caller maps them. Keys sent on it are not rewritten: a key
 * with a hash tag ({…}) must go through the store.
 */
export function redisClientOf(store: KeyValueStore): RedisClient | null {
  return clients.get(store) ?? null;
}

/**
 * Every connection of a store made by redisStore, named for the pool metrics: `redis`, and
 * `redis_durable` when writes that wait for replicas have their own; none for any other store.
 */
export function redisConnectionsOf(store: KeyValueStore): { pool: string; client: RedisClient }[] {
  return connections.get(store) ?? [];
}

/**
 * Redis through ioredis, failing fast: no offline queue and one retry, so a request never waits
 * on a dead Redis and never succeeds without its write. Every command ends within the bound, and a
 * connection that stops answering heals by itself: with commands outstanding and nothing received
 * for that long it is destroyed and a new one made (`socketTimeout`), so replies lost on the old
 * one cannot keep every later command waiting behind them.
 *
 * Keys may carry a hash tag, `{…}`, naming what must share a Cluster slot. In Cluster mode the tag
 * is sent as written; otherwise its braces are dropped, so one server's keys read as they always
 * have (a release that adds a tag finds the keys written before it). Multi-key reads and deletes
 * are split by slot in Cluster mode: no command ever spans two slots.
 */
export function redisStore(
  url: string,
  { prefix = 'devplat:', timeoutMs, topology = singleRedis, waitReplicas = 0 }: RedisStoreOptions,
): KeyValueStore {
  const redis = connect(url, prefix, timeoutMs, topology);
  redis.on('error', () => {}); // surfaced per command as DependencyUnavailableError
  // WAIT blocks its connection until the replicas answer: the writes that wait for them have
  // connections of their own, so every other command (sessions, throttles, client credentials)
  // never queues behind a replica that is slow or gone; several, taken in turn, so that one
  // write's WAIT holds up few others.
  const durablePool =
    waitReplicas > 0
      ? Array.from({ length: durableConnections }, () => connect(url, prefix, timeoutMs, topology))
      : [redis];
  for (const client of durablePool) if (client !== redis) client.on('error', () => {});
  let turn = 0;
  const durableWrites = () => durablePool[turn++ % durablePool.length] as RedisClient;
  const singleUseClients = () => ({ write: durableWrites(), undo: redis, durable: durableWrites });
  const cluster = redis instanceof Cluster;
  const sent = cluster ? (key: string) => key : (key: string) => key.replace(/[{}]/g, '');
  // Off Cluster every key shares the one server: one group, one command.
  const bySlot = (keys: string[]) => groupBySlot(keys, sent, cluster ? prefix : null);
  // WAIT answers within this, inside the command bound, with however many replicas it saw.
  const waitMs = Math.max(10, Math.floor(timeoutMs / 2));
  const redirected = (cause: unknown) => cluster && /^(MOVED|ASK) /.test(String((cause as Error)?.message));
  const refreshedSlots = () =>
    Promise.all(
      durablePool.map((client) => new Promise<unknown>((resolve) => (client as Cluster).refreshSlotsCache(resolve))),
    );
  const guard = async <T>(work: () => Promise<T>): Promise<T> => {
    try {
      return await work();
    } catch (cause) {
      // ioredis redirects a Cluster pipeline only when every command in it was redirected; the
      // WAIT after a durable write answers on any node, so that write comes back MOVED and the
      // client keeps its old map of the slots. It is refreshed for the caller's retry.
      if (cluster && /^(MOVED|ASK|CLUSTERDOWN) /.test(String((cause as Error)?.message))) {
        for (const client of durablePool) (client as Cluster).refreshSlotsCache();
      }
      throw new DependencyUnavailableError('Redis', { cause });
    }
  };
  const store: KeyValueStore = {
    put: (key, value, ttl) =>
      guard(async () => void (ttl ? await redis.set(sent(key), value, 'EX', ttl) : await redis.set(sent(key), value))),
    putIfAbsent: (key, value, ttl, { durable: singleUseClaim = false } = {}) =>
      guard(async () => {
        if (!singleUseClaim) {
          const set = ttl
            ? await redis.set(sent(key), value, 'EX', ttl, 'NX')
            : await redis.set(sent(key), value, 'NX');
          return set === 'OK';
        }
        const args = ttl ? [value, ttl] : [value];
        const reply = await singleUse(
          singleUseClients(),
          { timeoutMs, replicas: waitReplicas },
          {
            add: (pipeline, deadline) => pipeline.eval(claimScript, 1, sent(key), deadline, ...args),
            applied: (set) => set === 'OK',
          },
          (target) => target.eval(undoClaimScript, 2, sent(key), sent(undoMarkerKey(key)), value),
        );
        return reply === 'OK';
      }),
    increment: (key, { durable = false } = {}) =>
      guard(async () => {
        if (!durable || waitReplicas === 0) return redis.incr(sent(key));
        // A write answered MOVED or ASK did not run: with the slots' map refreshed it is sent again
        // (up to three times: a node asked for the map may not know the new master yet), so the
        // first bump after a failover (an idle process's map is the old one) is not a 503.
        for (let attempt = 1; ; attempt++) {
          try {
            const [count] = await onReplicas(durableWrites().pipeline().incr(sent(key)), waitReplicas, waitMs);
            return Number(count);
          } catch (cause) {
            if (!redirected(cause) || attempt === 3) throw cause;
            await refreshedSlots();
            await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
          }
        }
      }),
    addToCounters: (counts, ttl) =>
      guard(async () => {
        // One MULTI per slot (one in all off Cluster): a slot's counts are applied whole or not at all.
        const failed = new Map<string, number>();
        await Promise.all(
          [...bySlot([...counts.keys()]).values()].map(async (keys) => {
            const multi = redis.multi();
            for (const [key, original] of keys) multi.incrby(key, counts.get(original) ?? 0).expire(key, ttl);
            try {
              await execOrThrow(multi);
            } catch {
              for (const [, original] of keys) failed.set(original, counts.get(original) ?? 0);
            }
          }),
        );
        if (failed.size) throw new CountersNotAdded(failed);
      }),
    putFiled: (key, value, ttl, setKey) =>
      guard(async () => {
        const put = (multi: Multi) => (ttl ? multi.set(sent(key), value, 'EX', ttl) : multi.set(sent(key), value));
        const filed = addMember(redis.multi(), sent(setKey), key, ttl);
        if (bySlot([key, setKey]).size === 1) return execOrThrow(put(filed));
        await execOrThrow(filed);
        await execOrThrow(put(redis.multi()));
      }),
    swap: (key, { from, to, ttlSeconds, alongside }, claim, { durable: acknowledged = false } = {}) =>
      guard(async () => {
        const keys = [sent(key), sent(claim.key), sent(`${key}:undo`)];
        const filed = alongside ? [sent(alongside.key), sent(alongside.setKey)] : [];
        const filedArgs = alongside ? [alongside.value, alongside.key] : [];
        const reply = await singleUse(
          singleUseClients(),
          { timeoutMs, replicas: acknowledged ? waitReplicas : 0 },
          {
            add: (pipeline, deadline) =>
              pipeline.eval(
                swapScript,
                keys.length + filed.length,
                ...keys,
                ...filed,
                deadline,
                from,
                claim.value,
                claim.ttlSeconds,
                to,
                ttlSeconds,
                ...filedArgs,
              ),
            applied: (swapped) => swapped === 1,
          },
          (target) => target.eval(undoSwapScript, 4, ...keys, sent(undoMarkerKey(key)), to),
        );
        return reply === 1;
      }),
    takeOnce: (key, { field, equals }, claim) =>
      guard(async () => {
        const reply = (await redis.eval(
          takeOnceScript,
          2,
          sent(key),
          sent(claim.key),
          field,
          equals,
          claim.value,
          claim.ttlSeconds,
        )) as [number, string?] | null;
        if (!reply) return { outcome: 'none' };
        return reply[0] === 1 ? { outcome: 'taken', value: reply[1] as string } : { outcome: 'kept' };
      }),
    getMany: (keys) =>
      guard(async () => {
        if (keys.length === 0) return [];
        if (!cluster) return redis.mget(keys.map(sent));
        const found = new Map<string, string | null>();
        await Promise.all(
          [...bySlot(keys).values()].map(async (group) => {
            const values = await redis.mget(group.map(([key]) => key));
            for (const [at, [, original]] of group.entries()) found.set(original, values[at] ?? null);
          }),
        );
        return keys.map((key) => found.get(key) ?? null);
      }),
    delete: (keys) =>
      guard(async () => {
        if (keys.length === 0) return;
        if (!cluster) return void (await redis.del(keys.map(sent)));
        await Promise.all([...bySlot(keys).values()].map((group) => redis.del(group.map(([key]) => key))));
      }),
    appendToStreams: (appends) =>
      guard(async () => {
        const byKey = new Map<string, StreamAppend[]>();
        for (const append of appends) {
          if (append.values.length) byKey.set(append.key, [...(byKey.get(append.key) ?? []), append]);
        }
        // One pipeline per slot, a script per stream: its entries, trims and expiry in one command.
        await Promise.all(
          [...bySlot([...byKey.keys()]).values()].map((keys) => {
            const pipeline = redis.pipeline();
            for (const [key, original] of keys) {
              for (const append of byKey.get(original) ?? []) {
                const bounds = [append.maxLength, `${Math.max(0, Math.floor(append.minTime))}-0`, append.ttlSeconds];
                const follows = (append.follows ?? []).map(sent);
                pipeline.eval(appendScript, 1 + follows.length, key, ...follows, ...bounds, ...append.values);
              }
            }
            return execOrThrow(pipeline);
          }),
        );
      }),
    readStream: (key, read) =>
      guard(async () => {
        const entries =
          read.direction === 'older'
            ? await redis.xrevrange(sent(key), newestOf(read), oldestOf(read), 'COUNT', read.count)
            : await redis.xrange(sent(key), oldestOf(read), newestOf(read), 'COUNT', read.count);
        return entries.map(([id, fields]) => ({ id, value: fields[1] ?? '' }));
      }),
    members: (key) => guard(() => redis.smembers(sent(key))),
    ping: () => guard(async () => void (await redis.ping())),
    ready: async (waitMs = timeoutMs) => {
      await Promise.all([...new Set([redis, ...durablePool])].map((client) => connected(client, waitMs)));
    },
    close: async () => {
      redis.disconnect();
      for (const client of durablePool) client.disconnect();
    },
  };
  clients.set(store, redis);
  connections.set(store, [
    { pool: 'redis', client: redis },
    ...durablePool.filter((client) => client !== redis).map((client) => ({ pool: 'redis_durable', client })),
  ]);
  return store;
}

// KEYS[1] the value taken, KEYS[2] its claim; ARGV[1] and ARGV[2] the field and the text it must
// hold, ARGV[3] and ARGV[4] the claim's value and time to live. Answers {1, value} once taken, {0}
// for a value that does not match (left as it was), nil for none or one already claimed.
const takeOnceScript = `
local current = redis.call('GET', KEYS[1])
if not current then return nil end
local parsed, object = pcall(cjson.decode, current)
if not parsed or type(object) ~= 'table' or object[ARGV[1]] ~= ARGV[2] then return {0} end
if not redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4], 'NX') then return nil end
redis.call('DEL', KEYS[1])
return {1, current}`;

// KEYS[1] a stream, KEYS[2] onwards the streams it follows; ARGV[1] the most entries it keeps,
// ARGV[2] the oldest id it keeps, ARGV[3] its time to live in seconds, ARGV[4] onwards the values,
// each an entry of its own (field v). Following streams, the ids are given here from the server's
// time and the last id of every stream named (XINFO's last-generated-id, which trimming keeps).
const appendScript = `
if #KEYS == 1 then
  for i = 4, #ARGV do
    redis.call('XADD', KEYS[1], '*', 'v', ARGV[i])
  end
else
  local time = redis.call('TIME')
  local ms, seq = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000), -1
  for _, key in ipairs(KEYS) do
    if redis.call('EXISTS', key) == 1 then
      local info = redis.call('XINFO', 'STREAM', key)
      for j = 1, #info, 2 do
        if info[j] == 'last-generated-id' then
          local lastMs, lastSeq = string.match(info[j + 1], '^(%d+)%-(%d+)$')
          lastMs, lastSeq = tonumber(lastMs), tonumber(lastSeq)
          if lastMs > ms or (lastMs == ms and lastSeq > seq) then ms, seq = lastMs, lastSeq end
        end
      end
    end
  end
  for i = 4, #ARGV do
    seq = seq + 1
    redis.call('XADD', KEYS[1], string.format('%.0f-%.0f', ms, seq), 'v', ARGV[i])
  end
end
redis.call('XTRIM', KEYS[1], 'MAXLEN', ARGV[1])
redis.call('XTRIM', KEYS[1], 'MINID', ARGV[2])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return #ARGV - 3`;

const idTime = (id: string) => Number(id.slice(0, id.indexOf('-')));

/** The newer end of a range read: where an older read starts, `+` for a newer one. */
function newestOf({ direction, from }: StreamRead): string {
  if (direction === 'newer' || !from) return '+';
  return from.inclusive ? from.id : `(${from.id}`;
}

/** The older end of a range read: where a newer read starts (never before minTime), else minTime or `-`. */
function oldestOf({ direction, from, minTime }: StreamRead): string {
  const floor = minTime === undefined ? '-' : String(Math.max(0, Math.floor(minTime)));
  if (direction === 'older' || !from || (minTime !== undefined && idTime(from.id) < minTime)) return floor;
  return from.inclusive ? from.id : `(${from.id}`;
}

/** Counts a store could not add (its store error's cause): keep them for the next try. */
export class CountersNotAdded extends Error {
  readonly counts: Map<string, number>;
  constructor(counts: Map<string, number>) {
    super(`${counts.size} counter(s) not added`);
    this.counts = counts;
  }
}

/**
 * Runs the pipeline's writes, then WAIT on the same connection, in one round trip: WAIT answers
 * once the replicas have every write sent before it on this connection. The writes' replies; an
 * error when fewer replicas acknowledged them (the writes stay: only for writes that may repeat).
 */
async function onReplicas(pipeline: ReturnType<RedisClient['pipeline']>, replicas: number, waitMs: number) {
  const results = (await pipeline.wait(replicas, waitMs).exec()) ?? [];
  const acknowledged = results.pop();
  const failed = results.find(([error]) => error);
  if (results.length === 0 || failed) throw failed?.[0] ?? new Error('pipeline discarded');
  const count = acknowledged && !acknowledged[0] ? Number(acknowledged[1]) : 0;
  if (count < replicas) throw new Error(`the write reached ${count} of ${replicas} replica(s) in ${waitMs} ms`);
  return results.map(([, reply]) => reply);
}

/** Resolves once the client can take commands, or after waitMs. */
async function connected(client: RedisClient, waitMs: number): Promise<void> {
  if (client.status === 'ready') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, waitMs);
    client.once('ready', done);
  });
}

/** SADD, keeping the set at least ttl seconds longer (GT extends a longer-lived one, NX a new one). */
function addMember(multi: Multi, setKey: string, member: string, ttl?: number) {
  multi.sadd(setKey, member);
  if (ttl) multi.expire(setKey, ttl, 'GT').expire(setKey, ttl, 'NX');
  return multi;
}

async function execOrThrow(multi: Multi): Promise<void> {
  const results = await multi.exec();
  const failed = results?.find(([error]) => error);
  if (!results || failed) throw failed?.[0] ?? new Error('transaction discarded');
}

/**
 * Each distinct key, as sent and as given, grouped by the Cluster slot of its prefixed form; all in
 * one group off Cluster (clusterPrefix null).
 */
function groupBySlot(
  keys: string[],
  sent: (key: string) => string,
  clusterPrefix: string | null,
): Map<number, [string, string][]> {
  const groups = new Map<number, [string, string][]>();
  for (const key of new Set(keys)) {
    const slot = clusterPrefix === null ? 0 : calculateSlot(clusterPrefix + sent(key));
    const group = groups.get(slot) ?? [];
    group.push([sent(key), key]);
    groups.set(slot, group);
  }
  return groups;
}

function connect(url: string, prefix: string, timeoutMs: number, topology: RedisTopology): RedisClient {
  const perConnection = {
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    socketTimeout: timeoutMs,
    // A command that timed out may have run or not: it has failed its caller (who may retry), so
    // it is never sent again on the new connection.
    autoResendUnfulfilledCommands: false,
    lazyConnect: false,
  } satisfies ClusterOptions['redisOptions'];
  const failFast = { ...perConnection, enableOfflineQueue: false } satisfies RedisOptions;
  // Reconnect soon after Redis answers again, however long it was away.
  const retry = (attempt: number) => Math.min(attempt * 50, 1_000);
  if (topology.mode === 'single') {
    return new Redis(url, { ...failFast, keyPrefix: prefix, retryStrategy: retry });
  }
  const access = accessOf(url);
  if (topology.mode === 'sentinel') {
    return new Redis({
      ...failFast,
      ...access,
      keyPrefix: prefix,
      retryStrategy: retry,
      sentinels: topology.sentinels,
      name: topology.masterName,
      sentinelPassword: access.password,
      sentinelCommandTimeout: timeoutMs,
      sentinelRetryStrategy: retry,
      enableTLSForSentinelMode: access.tls !== undefined,
      // No failoverDetector: its +switch-master handler can disconnect a reconnect in progress and
      // leave the client ended for good (ioredis #1683, seen here about one failover in six).
      // A dead primary is noticed by the next command, a hung one by socketTimeout.
    });
  }
  const { db: _db, ...nodeAccess } = access; // a Cluster has one database
  const options: ClusterOptions = {
    keyPrefix: prefix,
    enableOfflineQueue: false,
    clusterRetryStrategy: retry,
    slotsRefreshTimeout: timeoutMs,
    redisOptions: { ...perConnection, ...nodeAccess },
  };
  return new Cluster(topology.nodes, options);
}

/** What of REDIS_URL a Sentinel or Cluster connection uses: its credentials, TLS and database. */
function accessOf(url: string): Pick<RedisOptions, 'username' | 'password' | 'db' | 'tls'> {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.slice(1));
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}
