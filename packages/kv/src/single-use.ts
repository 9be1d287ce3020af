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
// - An undo that cannot reach Redis is retried in the background until it lands (a failover takes
//   seconds); the caller's answer waits for it only briefly.
import { type Cluster, type Redis, ReplyError } from 'ioredis';

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
 * ARGV[5..6] the new value and its time to live. Answers 1 once swapped, nil when nothing was written.
 */
export const swapScript = `${deadlineCheck}
local current = redis.call('GET', KEYS[1])
if not current or string.sub(current, 1, string.len(ARGV[2])) ~= ARGV[2] then return nil end
if not redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4], 'NX') then return nil end
redis.call('SET', KEYS[3], current, 'EX', ${undoRetryMs / 1000 + 60})
redis.call('SET', KEYS[1], ARGV[5], 'EX', ARGV[6])
return 1`;

/** Puts back the value a swap replaced while the swap's own value (ARGV[1]) is still there. */
export const undoSwapScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  local previous = redis.call('GET', KEYS[3])
  if previous then
    redis.call('SET', KEYS[1], previous, 'KEEPTTL')
    redis.call('DEL', KEYS[2], KEYS[3])
  end
end
return 1`;

/** SET KEYS[1] ARGV[2] NX, for ARGV[3] seconds when given. Answers 'OK' when it set it. */
export const claimScript = `${deadlineCheck}
if ARGV[3] then return redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3], 'NX') end
return redis.call('SET', KEYS[1], ARGV[2], 'NX')`;

/** Deletes a claim while it still holds this call's value (ARGV[1]). */
export const undoClaimScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

/** A single-use write that did not count: it was refused, or taken back (its undo may still be retrying). */
export class SingleUseWriteFailed extends Error {}

/**
 * Sends a single-use write (`add` puts its script, given its deadline, on the pipeline) on `client`,
 * then WAITs for the replicas on the same connection; `applied` reads the script's reply. Resolves
 * with that reply once the write counts; otherwise the write has not happened or has been taken back
 * (`undo`, run on `undoClient`, which is not blocked by WAIT), and the call rejects.
 */
export async function singleUse(
  client: Client,
  undoClient: Client,
  settings: SingleUseSettings,
  write: { add: (pipeline: Pipeline, deadline: number) => void; applied: (reply: unknown) => boolean },
  undo: (client: Client) => Promise<unknown>,
): Promise<unknown> {
  const sentAt = Date.now();
  const pipeline = client.pipeline();
  write.add(pipeline, deadlineOf(sentAt, settings));
  if (settings.replicas > 0) pipeline.wait(settings.replicas, waitOf(settings));
  const [written, acknowledged] = (await pipeline.exec().catch(() => null)) ?? [];
  // Redis's own refusal (too late, out of memory, read-only): the script wrote nothing.
  if (written?.[0] instanceof ReplyError) throw written[0];
  if (!written || written[0]) {
    // Sent, but its answer never came: it may have run, or may yet until its deadline.
    await sleep(settledAt(sentAt, settings) - Date.now());
    await takeBack(undoClient, undo, settings);
    throw written?.[0] ?? new SingleUseWriteFailed('the write got no answer');
  }
  const reply = written[1];
  if (settings.replicas === 0) return reply;
  const count = acknowledged && !acknowledged[0] ? Number(acknowledged[1]) : 0;
  if (count >= settings.replicas) return reply;
  // A write no replica holds could be lost by a failover, and the token used again.
  if (write.applied(reply)) await takeBack(undoClient, undo, settings);
  throw new SingleUseWriteFailed(`the write reached ${count} of ${settings.replicas} replica(s) in time`);
}

/**
 * Runs the undo until it lands, for up to a minute; the caller waits for it at most a quarter of the
 * command bound, so a 503 is not held up by a Redis that is still away.
 */
async function takeBack(
  client: Client,
  undo: (client: Client) => Promise<unknown>,
  { timeoutMs }: SingleUseSettings,
): Promise<void> {
  const until = Date.now() + undoRetryMs;
  const landed = (async () => {
    // A store closed for good ('end') takes no more commands.
    while (!(await attempt(client, undo)) && Date.now() < until && client.status !== 'end') {
      await sleep(undoRetryEveryMs);
    }
  })();
  await Promise.race([landed, sleep(Math.floor(timeoutMs / 4))]);
}

const attempt = (client: Client, undo: (client: Client) => Promise<unknown>) =>
  undo(client).then(
    () => true,
    () => false,
  );

const sleep = (ms: number) =>
  ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms).unref()) : Promise.resolve();
