// Following one of the console's Server-Sent Events streams (devplat listen, devplat logs tail):
// the console ends each stream after a while, so the CLI reconnects at once with the last id it saw
// (Last-Event-ID); a lost connection is retried with a growing wait; a refusal that reconnecting
// will not change ends the command; Ctrl-C stops it.
import { setTimeout as sleep } from 'node:timers/promises';
import type { CommandContext } from './command.ts';
import { networkReason } from './console-client.ts';
import { FailureError, NotSignedInError } from './errors.ts';
import { type ServerSentEvent, serverSentEvents } from './server-sent-events.ts';

export interface StreamFollowing {
  /** The console API path of the stream. */
  path: string;
  /** Said on stderr once the first connection is open. */
  ready: string;
  /** What a lost connection's reason names as its timeout. */
  timeoutMs: number;
  /** Each message, awaited before the next is read. */
  onMessage(message: ServerSentEvent, stop: AbortSignal): Promise<void> | void;
}

/** A refusal that reconnecting will not change (the app is gone, the account suspended). */
const isRefusal = (error: unknown) => error instanceof FailureError && [403, 404].includes(error.problem.status ?? 0);

/** Follows the stream until Ctrl-C; a refusal before the first connection, or a lasting one, is thrown. */
export async function followConsoleStream(
  ctx: CommandContext,
  { path, ready, timeoutMs, onMessage }: StreamFollowing,
): Promise<void> {
  const consoleApi = ctx.signedIn();
  const stop = ctx.io.interrupted();
  let lastEventId = '';
  let connected = false;
  let failures = 0;
  while (!stop.aborted) {
    try {
      const headers: Record<string, string> = lastEventId ? { 'last-event-id': lastEventId } : {};
      const response = await consoleApi.stream(path, headers, stop);
      if (!connected) ctx.io.stderr.write(ready);
      else if (failures > 0) ctx.io.stderr.write('Reconnected.\n');
      connected = true;
      failures = 0;
      if (!response.body) continue;
      for await (const message of serverSentEvents(response.body)) {
        if (message.id) lastEventId = message.id;
        await onMessage(message, stop);
      }
    } catch (error) {
      if (stop.aborted) break;
      // Refused before anything was shown (no session, no such app, a bad filter): nothing to wait for.
      if (!connected || error instanceof NotSignedInError || isRefusal(error)) throw error;
      failures++;
      const wait = Math.min(30, 2 ** (failures - 1));
      const reason = error instanceof FailureError ? error.problem.detail : networkReason(error, timeoutMs);
      ctx.io.stderr.write(`Lost the console (${reason}): reconnecting in ${wait} s...\n`);
      // Ctrl-C ends the wait at once (the loop then stops).
      await sleep(wait * 1000, undefined, { signal: stop }).catch(() => {});
    }
  }
  ctx.io.stderr.write('Stopped.\n');
}
