// devplat logs tail: an app's request log as it is written, as `stripe logs tail` does it. The CLI
// opens a stream to the console (GET /api/apps/{client_id}/requests/stream, Server-Sent Events) and
// prints a line per call: when, the operation, the status, the error code, the request id and the
// latency. The console ends each stream after a while; the CLI reconnects at once with the last id
// it saw (Last-Event-ID), so nothing is missed or shown twice. Ctrl-C ends it.
import type { RequestLogEntryView } from '@devplat/contract';
import type { CommandContext, CommandSpec } from './command.ts';
import { followConsoleStream } from './console-stream.ts';
import { filterOption } from './option-specs.ts';
import { when } from './output.ts';
import { clientIdArg } from './public-api.ts';

const statusClasses = ['2xx', '4xx', '5xx'] as const;
const operations = ['token', 'revoke', 'cities', 'me'] as const;
const waitForHeadersMs = 30_000;

/** The stream's query: the filters given. */
function filterQuery(ctx: CommandContext): string {
  const query = new URLSearchParams();
  for (const name of ['status', 'operation', 'error']) {
    const value = ctx.options[name];
    if (typeof value === 'string' && value !== '') query.set(name, value);
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}

function describeFilters(ctx: CommandContext): string {
  const given = ['status', 'operation', 'error'].flatMap((name) => {
    const value = ctx.options[name];
    return typeof value === 'string' && value !== '' ? [`${name} ${value}`] : [];
  });
  return given.length ? ` (only ${given.join(', ')})` : '';
}

function print(ctx: CommandContext, entry: RequestLogEntryView): void {
  if (ctx.json) {
    ctx.io.stdout.write(`${JSON.stringify(entry)}\n`);
    return;
  }
  const notes = [
    entry.client_authenticated ? '' : 'client authentication failed',
    entry.grant_type ?? '',
    entry.subject ? `subject ${entry.subject}` : '',
  ].filter(Boolean);
  ctx.out.line(
    [
      when(entry.at),
      entry.operation.padEnd(6),
      String(entry.status),
      (entry.error ?? '-').padEnd(19),
      entry.request_id,
      `${entry.latency_ms} ms`,
      ...(notes.length ? [notes.join(', ')] : []),
    ].join('  '),
  );
}

async function runTail(ctx: CommandContext) {
  const clientId = ctx.args.client_id as string;
  await followConsoleStream(ctx, {
    path: `/apps/${encodeURIComponent(clientId)}/requests/stream${filterQuery(ctx)}`,
    ready:
      `Ready: tailing the request log of ${clientId}${describeFilters(ctx)} (Ctrl-C to stop).\n` +
      'A line per call to the token and revocation endpoints, /cities and /me, as it is answered.\n',
    timeoutMs: waitForHeadersMs,
    onMessage: (message) => {
      if (message.event === 'request') print(ctx, JSON.parse(message.data) as RequestLogEntryView);
    },
  });
}

const tail: CommandSpec = {
  path: ['logs', 'tail'],
  summary: "Stream an app's request log live: each call with its status, error code and request id",
  args: [clientIdArg],
  options: [
    filterOption('status', '<class>', statusClasses, 'Only answers of this status class'),
    filterOption('operation', '<operation>', operations, 'Only this operation'),
    {
      name: 'error',
      type: 'string',
      value: '<code>',
      description: 'Only this error: an OAuth error (invalid_client, ...) or a Problem code (INVALID_TOKEN, ...)',
    },
  ],
  description: [
    "devplat logs tail prints the app's calls to the token and revocation endpoints, /cities and /me as the " +
      'platform answers them (within a second): the time, the operation, the status, the OAuth error or ' +
      'Problem code, the request id (the X-Request-ID of the answer) and the latency. A call whose client ' +
      "authentication failed (a wrong secret) but that named the app's client id is shown too, marked as such. " +
      'It runs until Ctrl-C, reconnecting by itself. The console keeps the same log (the app page, Request log).',
    'Never a token or a secret: a user token shows only its pairwise subject.',
  ],
  examples: [
    'devplat logs tail svc_...',
    'devplat logs tail svc_... --status 4xx',
    'devplat logs tail svc_... --operation token --error invalid_client --json',
  ],
  run: runTail,
};

export const logsCommands: CommandSpec[] = [tail];
