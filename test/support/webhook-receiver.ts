// A real HTTP server on 127.0.0.1 standing in for an app's webhook endpoint: each test sets how it
// answers, reads what arrived, and checks signatures with the standardwebhooks package (the
// reference implementation a receiver would use, not ours).
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** How the receiver answers the `index`-th request (0-based). */
export type ReceiverBehaviour = (response: ServerResponse, received: ReceivedWebhook, index: number) => void;

export interface WebhookReceiver {
  /** http://127.0.0.1:<port>/hooks */
  url: string;
  port: number;
  received: ReceivedWebhook[];
  behave(behaviour: ReceiverBehaviour): void;
  /** Resolves once `count` requests have arrived; rejects after timeoutMs. */
  waitForRequests(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  close(): Promise<void>;
}

export const answer =
  (status: number, body = ''): ReceiverBehaviour =>
  (response) => {
    response.writeHead(status).end(body);
  };

/** Never answers: the request stays open until the sender gives up or the receiver closes. */
export const hold: ReceiverBehaviour = () => {};

/** Verifies the signature headers with standardwebhooks; returns the parsed body or throws. */
export function verifyWebhook(signingSecret: string, webhook: ReceivedWebhook): unknown {
  return new Webhook(signingSecret).verify(webhook.body, webhook.headers);
}

/** Posts `body` to `url` as a webhook with a made-up signature: what a stranger could send. */
export function postForgedWebhook(url: string, body: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: {
      'webhook-id': 'msg_forged',
      'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
      'webhook-signature': 'v1,AAAA',
    },
    body,
  });
}

/** Polls `check` until it returns a value other than undefined/false; rejects after timeoutMs. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false> | T | undefined | false,
  timeoutMs = 10_000,
) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export async function startWebhookReceiver(initial: ReceiverBehaviour = answer(204)): Promise<WebhookReceiver> {
  let behaviour = initial;
  const received: ReceivedWebhook[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(request.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      const webhook = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(webhook);
      behaviour(response, webhook, received.length - 1);
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    behave(next) {
      behaviour = next;
    },
    waitForRequests: (count, timeoutMs = 10_000) =>
      eventually(() => received.length >= count && received.slice(0, count), timeoutMs),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
