// A write that uses something up (a code's single use, a refresh token's rotation) either counts or
// leaves nothing behind: a caller told it failed must find the code or token as it was, once Redis
// is healthy again, so that the client's retry succeeds instead of reading as a replay.
//
// Three things make that hold whatever goes wrong between the platform and Redis:
// - A deadline travels with the write, and the script refuses to run after it (Redis's clock). Bytes
//   already sent cannot be called back: a write queued behind a blocked connection, or on a server
//   that was frozen, would otherwise run after its caller had been answered 503.
// - Once the write has failed (no replica acknowledged it, its answer never came, the connection
//   broke, a failover), it is taken back: at once when its answer says it ran, otherwise once its
//   deadline has passed, when it can no longer run. The undo is conditional, so it only ever takes
//   back this call's own write.
// - The undo is as durable as the write: it counts once as many replicas acknowledge it as the
//   write needed. A write no replica acknowledged in time may still have reached one; an undo the
//   primary alone held would be lost with it in a failover, leaving the write, so the client's retry
//   would read as a replay (seen in a soak: two families ended after an unplanned failover). Every
//   undo ends with a write of its own (a marker), so that its WAIT, on whichever connection,
//   answers for the undo and everything before it on that primary.
// - An undo that cannot reach Redis, or that no replica acknowledges, is retried in the background
//   until it lands (a failover takes seconds); the caller's answer waits for it only briefly.
import { Cluster, type Redis, ReplyError } from 'ioredis';

type Client = Redis | Cluster;
type Pipeline = ReturnType<Client['pipeline']>;

/** How long a failed undo keeps being retried in the background. */
const undoRetryMs = 60_000;
const undoRetryEveryMs = 100;

export interface SingleUseSettings {
  /** REDIS_TIMEOUT_MS: the bound on a command. */
  timeoutMs: number;
  /** REDIS_WAIT_REPLICAS: how many replicas must have the write; 0 takes the primary's word. */
  replicas: number;
}

/**
 * The deadline a write sent now carries: half of the command bound, which leaves a quarter for its
 * WAIT and a quarter for Redis's clock to run behind this process's.
 */
const deadlineOf = (sentAt: number, { timeoutMs }: SingleUseSettings) => sentAt + Math.floor(timeoutMs / 2);

/** How long WAIT waits for the replicas: a quarter of the command bound. */
const waitOf = ({ timeoutMs }: SingleUseSettings) => Math.max(10, Math.floor(timeoutMs / 4));

/**
 * When a write sent at `sentAt` can no longer run anywhere: its deadline, plus a quarter of the
 * bound for Redis's clock running behind this process's (NTP keeps them within milliseconds).
 */
const settledAt = (sentAt: number, { timeoutMs }: SingleUseSettings) => sentAt + Math.floor((3 * timeoutMs) / 4);

// The check every single-use script begins with: past ARGV[1] (ms since the epoch), it writes nothing.
const deadlineCheck = `
local now = redis.call('TIME')
if tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) > tonumber(ARGV[1]) then
  return redis.error_reply('LATE the write arrived after its deadline and was not applied')
end`;

/**
 * KEYS[1] the value compared and replaced, KEYS[2] the claim, KEYS[3] where the replaced value is
 * kept for an undo; ARGV[2] the prefix compared, ARGV[3..4] the claim's value and time to live,
 * ARGV[5..6] the new value and its time to live. With KEYS[4..5], an entry written alongside and
 * the set it is filed in (ARGV[7..8] its value and its name as filed), both kept as long as the new
 * value. Answers 1 once swapped, nil when nothing was written.
 */
export const swapScript = `${deadlineCheck}
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, string.len(ARGV[2])) ~= ARGV[2] then return nil end
if not redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4], 'NX') then return nil end
redis.call('SET', KEYS[3], current, 'EX', ${undoRetryMs / 1000 + 60})
redis.call('SET', KEYS[1], ARGV[5], 'EX', ARGV[6])
if KEYS[5] then
  redis.call('SADD', KEYS[5], ARGV[8])
  redis.call('EXPIRE', KEYS[5], ARGV[6], 'GT')
  redis.call('EXPIRE', KEYS[5], ARGV[6], 'NX')
  redis.call('SET', KEYS[4], ARGV[7], 'EX', ARGV[6])
end
return 1`;

// How long an undo's marker lives: long enough for its WAIT.
const markerSeconds = 60;

/**
 * What every undo ends with: a write to its marker (the last key), so that there is always a write
 * for its WAIT to answer for, even when the undo had already landed and found nothing to take back.
 */
const undoMarker = `redis.call('SET', KEYS[#KEYS], '1', 'EX', ${markerSeconds})
return 1`;

/**
 * Puts back the value a swap replaced while the swap's own value (ARGV[1]) is still there. KEYS as
 * the swap's, then the marker.
 */
export const undoSwapScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  local previous = redis.call('GET', KEYS[3])
  if previous then
    redis.call('SET', KEYS[1], previous, 'KEEPTTL')
    redis.call('DEL', KEYS[2], KEYS[3])
  end
end
${undoMarker}`;

/** SET KEYS[1] ARGV[2] NX, for ARGV[3] seconds when given. Answers 'OK' when it set it. */
export const claimScript = `${deadlineCheck}
if ARGV[3] then return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3], 'NX') end
return redis.call('SET', KEYS[1], ARGV[2], 'NX')`;

/** Deletes a claim (KEYS[1]) while it still holds this call's value (ARGV[1]); KEYS[2] the marker. */
export const undoClaimScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
${undoMarker}`;

/** Where an undo of a write to `key` leaves its marker: beside it, in its slot (hash tags are kept). */
export const undoMarkerKey = (key: string) => `${key}:undone`;

/** A single-use write that did not count: it was refused, or taken back (its undo may still be retrying). */
export class SingleUseWriteFailed extends Error {}

/** The connections a single-use write uses. */
export interface SingleUseClients {
  /** Where the write and its WAIT go: a connection of the durable pool. */
  write: Client;
  /** Where an undo goes first: a connection no WAIT blocks, so it lands at once. */
  undo: Client;
  /** A durable connection for each attempt to have the undo acknowledged by the replicas. */
  durable: () => Client;
}

/**
 * Sends a single-use write (`add` puts its script, given its deadline, on the pipeline), then WAITs
 * for the replicas on the same connection; `applied` reads the script's reply. Resolves with that
 * reply once the write counts; otherwise the write has not happened or has been taken back (`undo`
 * puts its script on a pipeline or sends it), and the call rejects.
 */
export async function singleUse(
  clients: SingleUseClients,
  settings: SingleUseSettings,
  write: { add: (pipeline: Pipeline, deadline: number) => void; applied: (reply: unknown) => boolean },
  undo: Undo,
): Promise<unknown> {
  const sentAt = Date.now();
  const pipeline = clients.write.pipeline();
  write.add(pipeline, deadlineOf(sentAt, settings));
  if (settings.replicas > 0) pipeline.wait(settings.replicas, waitOf(settings));
  const [written, acknowledged] = (await pipeline.exec().catch(() => null)) ?? [];
  // Redis's own refusal (too late, out of memory, read-only): the script wrote nothing.
  if (written?.[0] instanceof ReplyError) throw written[0];
  if (!written || written[0]) {
    // Sent, but its answer never came: it may have run, or may yet until its deadline.
    await sleep(settledAt(sentAt, settings) - Date.now());
    await takeBack(clients, undo, settings);
    throw written?.[0] ?? new SingleUseWriteFailed('the write got no answer');
  }
  const reply = written[1];
  if (settings.replicas === 0) return reply;
  const count = acknowledged && !acknowledged[0] ? Number(acknowledged[1]) : 0;
  if (count >= settings.replicas) return reply;
  // A write no replica holds could be lost by a failover, and the token used again; one that reached
  // a replica after all must not outlive its undo.
  if (write.applied(reply)) await takeBack(clients, undo, settings);
  throw new SingleUseWriteFailed(`the write reached ${count} of ${settings.replicas} replica(s) in time`);
}

/** An undo script, sent on a client or put on a pipeline (to be followed by a WAIT). */
export type Undo = (target: Client | Pipeline) => unknown;

/**
 * Runs the undo until it lands, then (with replicas) until as many replicas acknowledge it as the
 * write needed, for up to a minute in all; the caller waits for it to land at most a quarter of the
 * command bound, so a 503 is not held up by a Redis that is still away.
 */
async function takeBack(clients: SingleUseClients, undo: Undo, settings: SingleUseSettings): Promise<void> {
  const until = Date.now() + undoRetryMs;
  // A store closed for good ('end') takes no more commands.
  const retrying = (client: Client) => Date.now() < until && client.status !== 'end';
  const landed = (async () => {
    while (!(await attempt(clients.undo, undo)) && retrying(clients.undo)) await sleep(undoRetryEveryMs);
  })();
  void landed.then(async () => {
    if (settings.replicas === 0) return;
    // Again on a durable connection: on the same primary it only writes its marker, whose WAIT then
    // answers for the undo too; on a primary promoted without the undo, it takes the write back there.
    for (let client = clients.durable(); retrying(client); client = clients.durable()) {
      if (await acknowledged(client, undo, settings)) return;
      // A MOVED reply to a pipeline leaves a Cluster client's map of the slots as it was.
      if (client instanceof Cluster) client.refreshSlotsCache();
      await sleep(undoRetryEveryMs);
    }
  });
  await Promise.race([landed, sleep(Math.floor(settings.timeoutMs / 4))]);
}

const attempt = async (client: Client, undo: Undo) => {
  try {
    await undo(client);
    return true;
  } catch {
    return false;
  }
};

/** The undo and a WAIT, in one round trip: whether it ran and enough replicas have it. */
async function acknowledged(client: Client, undo: Undo, settings: SingleUseSettings): Promise<boolean> {
  const pipeline = client.pipeline();
  undo(pipeline);
  const results = await pipeline
    .wait(settings.replicas, waitOf(settings))
    .exec()
    .catch(() => null);
  const [ran, waited] = results ?? [];
  return !!ran && !ran[0] && !!waited && !waited[0] && Number(waited[1]) >= settings.replicas;
}

const sleep = (ms: number) =>
  ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms).unref()) : Promise.resolve();
