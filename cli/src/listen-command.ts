// devplat listen: an app's consent and test events on the developer's own machine, as `stripe
// listen` does it. The CLI opens a stream to the console (GET /api/apps/{client_id}/events, Server-
// Sent Events) and posts each event to --forward-to with the body and Standard Webhooks headers the
// console signed with the app's own secret: exactly what a real delivery sends. Nothing connects
// to this machine, so no port is opened and no https or WEBHOOK_ALLOW_LOOPBACK_HTTP is needed.
import { UsageError } from '@devplat/command-line';
import type { CommandContext, CommandSpec } from './command.ts';
import { networkReason } from './console-client.ts';
import { followConsoleStream } from './console-stream.ts';
import { when } from './output.ts';
import { clientIdArg } from './public-api.ts';
import { triggerableEvents } from './trigger-command.ts';

interface StreamedEvent {
  id: string;
  type: string;
  headers: Record<string, string>;
  body: string;
}

interface Forwarded {
  status?: number;
  error?: string;
  ms: number;
}

const forwardTimeoutMs = 10_000;
/** Event ids forwarded lately: a reconnection's overlap repeats some, and each goes out once. */
const rememberedIds = 1_000;

async function forward(target: URL, event: StreamedEvent, stop: AbortSignal): Promise<Forwarded> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(target, {
      method: 'POST',
      headers: event.headers,
      body: event.body,
      redirect: 'manual',
      signal: AbortSignal.any([stop, AbortSignal.timeout(forwardTimeoutMs)]),
    });
    await response.body?.cancel();
    return { status: response.status, ms: ms() };
  } catch (error) {
    return { error: networkReason(error, forwardTimeoutMs), ms: ms() };
  }
}

function forwardTo(ctx: CommandContext): URL {
  const given = ctx.options['forward-to'] as string;
  let target: URL;
  try {
    target = new URL(given);
  } catch {
    throw new UsageError(
      `--forward-to must be an absolute http(s) URL, e.g. http://localhost:3000/hooks (got "${given}").`,
    );
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw new UsageError(`--forward-to must be an http or https URL (got "${given}").`);
  }
  return target;
}

/** The event types --events names (comma-separated, each one the platform sends); null: every one. */
function eventFilter(ctx: CommandContext): Set<string> | null {
  const given = ctx.options.events as string | undefined;
  if (given === undefined) return null;
  const types = given.split(',').map((type) => type.trim());
  const unknown = types.find((type) => !(triggerableEvents as readonly string[]).includes(type));
  if (unknown !== undefined) {
    throw new UsageError(
      `--events takes event types separated by commas, each one of ${triggerableEvents.join(', ')} (got "${unknown}").`,
    );
  }
  return new Set(types);
}

async function runListen(ctx: CommandContext) {
  const target = forwardTo(ctx);
  const only = eventFilter(ctx);
  const clientId = ctx.args.client_id as string;
  const forwarded = new Set<string>();
  const which = only ? `${[...only].join(' and ')} events` : 'consent and test events';
  await followConsoleStream(ctx, {
    path: `/apps/${encodeURIComponent(clientId)}/events`,
    ready:
      `Ready: forwarding the ${which} of ${clientId} to ${target.href} (Ctrl-C to stop).\n` +
      "Each is signed with the app's webhook signing secret (devplat apps show lists it), as a real delivery is.\n" +
      `Send a test event from another terminal: devplat webhooks test ${clientId}\n`,
    timeoutMs: forwardTimeoutMs,
    onMessage: async (message, stop) => {
      if (message.event !== 'webhook') return;
      const event = JSON.parse(message.data) as StreamedEvent;
      if (forwarded.has(event.id) || (only && !only.has(event.type))) return;
      forwarded.add(event.id);
      if (forwarded.size > rememberedIds) forwarded.delete(forwarded.values().next().value as string);
      const test = (JSON.parse(event.body) as { data?: { test?: boolean } }).data?.test === true;
      const outcome = await forward(target, event, stop);
      report(ctx, event, test, outcome);
    },
  });
}

function report(ctx: CommandContext, event: StreamedEvent, test: boolean, outcome: Forwarded) {
  if (ctx.json) {
    ctx.io.stdout.write(
      `${JSON.stringify({ event_id: event.id, type: event.type, test, status: outcome.status ?? null, error: outcome.error ?? null, ms: outcome.ms })}\n`,
    );
    return;
  }
  const answer = outcome.status !== undefined ? `${outcome.status}` : `failed: ${outcome.error}`;
  ctx.out.line(
    `${when(new Date().toISOString())}  ${event.type}${test ? ' (test)' : ''}  ${event.id}  → ${answer} (${outcome.ms} ms)`,
  );
}

export const listenCommand: CommandSpec = {
  path: ['listen'],
  summary: "Forward an app's consent and test events to a local URL, signed as real deliveries",
  args: [clientIdArg],
  options: [
    {
      name: 'forward-to',
      type: 'string',
      value: '<url>',
      required: true,
      description: 'Your endpoint, e.g. http://localhost:3000/hooks (any http or https URL this machine reaches)',
    },
    {
      name: 'events',
      type: 'string',
      value: '<types>',
      description: `Only these event types, separated by commas (${triggerableEvents.join(', ')}); default: all`,
    },
  ],
  description: [
    "devplat listen receives the app's consent.granted and consent.revoked events, and its test events " +
      '(devplat webhooks test, which needs no webhook URL while a listen runs), through the console: it ' +
      'opens the connection, so nothing needs to reach this machine. Each event is posted to --forward-to ' +
      "with the body and the Standard Webhooks headers of a real delivery, signed with the app's webhook " +
      'signing secret, and a line says what your endpoint answered. It runs until Ctrl-C, reconnecting ' +
      'by itself, and forwards each event once.',
    "Events go to the app's webhook URL as well, if it has one: listen adds a receiver, it replaces none.",
  ],
  examples: [
    'devplat listen svc_... --forward-to http://localhost:3000/hooks',
    'devplat listen svc_... --forward-to http://127.0.0.1:8000/webhooks --json',
    'devplat listen svc_... --forward-to http://localhost:3000/hooks --events consent.revoked',
  ],
  run: runListen,
};
