// Each request of the load, sent and recorded whole: its answer's status and error code, or that
// there was no answer. Developer API answers are also held to the contract document (noted, not
// thrown: a fault must not stop a loop). The history keeps no token: only a fingerprint of each
// one presented or received, which is all the checker compares.
import { createHash } from 'node:crypto';
import { contractValidator } from '@devplat/test/http';
import type { Entry, History, Operation } from './history.ts';

/** How long a client waits for an answer before it gives up (an unknown outcome). */
const timeoutMs = 15_000;

export interface Sent {
  entry: Entry;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read freely, as a client does
  json: any;
}

export interface Request {
  op: Operation;
  url: string;
  init?: RequestInit;
  chain?: number;
  presented?: string;
  expect: number[];
  final?: boolean;
  acknowledged?: Entry['acknowledged'];
  /** The developer API path, to check the answer against the contract (none for pages and the console). */
  contractPath?: string;
  // biome-ignore lint/suspicious/noExplicitAny: answers are read freely
  received?: (json: any) => Entry['received'];
}

function jsonOf(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

/** What the transport said when no answer came: `ECONNRESET`, `TimeoutError`, … */
function transportError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? (error as Error).name ?? String(error);
}

/** A token's short fingerprint: the same token, the same fingerprint; nothing to present. */
export const fingerprint = (token: string) => createHash('sha256').update(token).digest('base64url').slice(0, 16);

const fingerprinted = (received: Entry['received']): Entry['received'] =>
  received && {
    ...(received.access ? { access: fingerprint(received.access) } : {}),
    ...(received.refresh ? { refresh: fingerprint(received.refresh) } : {}),
    ...(received.consent ? { consent: received.consent } : {}),
  };

export async function send(history: History, request: Request): Promise<Sent> {
  const start = history.now();
  const { op, chain, expect, final, acknowledged } = request;
  const presented = request.presented === undefined ? undefined : fingerprint(request.presented);
  const base = {
    op,
    chain,
    presented,
    expect,
    start,
    ...(final ? { final } : {}),
    ...(acknowledged ? { acknowledged } : {}),
  };
  try {
    const response = await fetch(request.url, {
      redirect: 'manual',
      ...request.init,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = await response.text();
    const json = jsonOf(text) as Sent['json'];
    const status = response.status;
    const nonconforming = request.contractPath
      ? contractValidator('1.1.0').check({
          method: request.init?.method ?? 'GET',
          path: request.contractPath,
          status,
          headers: response.headers,
          body: text,
        })
      : [];
    const entry = history.record({
      ...base,
      end: history.now(),
      status,
      error: json?.error ?? json?.code,
      requestId: response.headers.get('x-request-id') ?? undefined,
      received: status >= 200 && status < 300 ? fingerprinted(request.received?.(json)) : undefined,
      ...(nonconforming.length ? { nonconforming } : {}),
    });
    return { entry, json };
  } catch (error) {
    const entry = history.record({ ...base, end: history.now(), status: null, error: transportError(error) });
    return { entry, json: undefined };
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A retry after a 5xx or no answer: the client presents the same thing again. */
export const retryable = (sent: Sent) => sent.entry.status === null || sent.entry.status >= 500;

/** Sends until answered (not a 5xx, not silence), at most `tries` times, while `running()`. */
export async function answered(make: () => Promise<Sent>, running: () => boolean, tries = 8): Promise<Sent> {
  let sent = await make();
  for (let attempt = 1; attempt < tries && running() && retryable(sent); attempt++) {
    await sleep(Math.min(500 * attempt, 3_000));
    sent = await make();
  }
  return sent;
}
