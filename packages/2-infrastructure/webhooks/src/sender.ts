// One delivery attempt: a signed POST over node:http(s), with a time limit for the whole attempt,
// no redirects, and a lookup that refuses host names resolving to addresses a webhook may not
// reach (checked on the addresses actually connected to, so DNS rebinding cannot slip past).
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { urlPort } from '@devplat/config';
import { addressProblem, isLocalhostName } from './addresses.ts';
import { signedHeaders } from './message.ts';
import { type WebhookUrlSettings, webhookUrlProblem } from './url-rules.ts';

export interface WebhookMessage {
  url: string;
  /** The outbox event id: the webhook-id header. */
  eventId: string;
  body: string;
  signingSecret: string;
}

export interface SendSettings extends WebhookUrlSettings {
  timeoutMs: number;
  /** How host names are resolved (tests stand in a resolver of their own). */
  resolveHost?: HostResolver;
}

export type HostResolver = (hostname: string) => Promise<LookupAddress[]>;

/**
 * DNS through c-ares, not getaddrinfo: a name server that never answers then holds no thread of
 * libuv's small pool (which password hashing needs), only a timer. `localhost` is answered here.
 */
function dnsResolver(timeoutMs = 2_000): HostResolver {
  const resolver = new Resolver({ timeout: timeoutMs, tries: 2 });
  return async (hostname) => {
    if (isLocalhostName(hostname)) {
      return [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ];
    }
    const [v4, v6] = await Promise.allSettled([resolver.resolve4(hostname), resolver.resolve6(hostname)]);
    const addresses = [
      ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
      ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
    ];
    if (addresses.length > 0) return addresses;
    const failure = v4.status === 'rejected' ? (v4.reason as { code?: string }) : {};
    throw Object.assign(new Error('host not found'), { code: failure.code === 'ETIMEOUT' ? 'EAI_AGAIN' : 'ENOTFOUND' });
  };
}

const defaultResolver = dnsResolver();

/** `error` is short and never carries the secret, the body or the receiver's answer. */
export type AttemptOutcome =
  | { result: 'delivered'; statusCode: number }
  | { result: 'failed'; statusCode: number | null; error: string }
  /** Stopped by the caller (shutdown) before it ended: not the receiver's doing. */
  | { result: 'abandoned' };

/** How much of an answer is read (and thrown away) before the connection is closed. */
const maxAnswerBytes = 64 * 1024;

const blockedAddressCode = 'EWEBHOOKADDRESS';

const failed = (statusCode: number | null, error: string): AttemptOutcome => ({ result: 'failed', statusCode, error });

function guardedLookup(allowLoopback: boolean, resolveHost: HostResolver): LookupFunction {
  return (hostname, options, callback) => {
    resolveHost(hostname).then(
      (addresses) => {
        for (const { address } of addresses) {
          const problem = addressProblem(address, { allowLoopback });
          if (problem) {
            const refusal = Object.assign(new Error(`refused: ${hostname} resolves to ${problem}`), {
              code: blockedAddressCode,
            });
            return callback(refusal, '', 0);
          }
        }
        const [first] = addresses;
        if (!first) return callback(Object.assign(new Error('host not found'), { code: 'ENOTFOUND' }), '', 0);
        if (options.all) callback(null, addresses);
        else callback(null, first.address, first.family);
      },
      (error: Error) => callback(error, '', 0),
    );
  };
}

const errorTexts: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'DNS lookup failed (temporary)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPROTO: 'TLS handshake failed',
};

/** A short text for a transport error: built from its code, never from the error's own message. */
function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  if (code === blockedAddressCode) return (error as Error).message.slice(0, 300);
  if (typeof code !== 'string') return 'request failed';
  if (errorTexts[code]) return errorTexts[code];
  if (code.startsWith('HPE_')) return 'the answer was not valid HTTP';
  if (/CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL/.test(code)) return `TLS certificate refused (${code})`;
  return `request failed (${code.slice(0, 60)})`;
}

function outcomeOf(statusCode: number): AttemptOutcome {
  if (statusCode >= 200 && statusCode < 300) return { result: 'delivered', statusCode };
  if (statusCode >= 300 && statusCode < 400) return failed(statusCode, `redirect not followed (HTTP ${statusCode})`);
  return failed(statusCode, `HTTP ${statusCode}`);
}

/** Sends one attempt; never rejects. Only a 2xx answer within the time limit is a delivery. */
export function sendWebhook(
  message: WebhookMessage,
  settings: SendSettings,
  signal?: AbortSignal,
): Promise<AttemptOutcome> {
  const problem = webhookUrlProblem(message.url, settings);
  if (problem) return Promise.resolve(failed(null, `the URL ${problem}`));
  let headers: Record<string, string>;
  try {
    headers = signedHeaders(message.eventId, message.body, message.signingSecret);
  } catch {
    return Promise.resolve(failed(null, 'the app has no valid webhook signing secret'));
  }
  if (signal?.aborted) return Promise.resolve({ result: 'abandoned' });
  const target = new URL(message.url);
  const transport = target.protocol === 'https:' ? https : http;
  // A name that resolves to a loopback address reaches the platform itself on one of its ports.
  const allowLoopback = settings.allowLoopbackHttp && !settings.ownPorts?.includes(urlPort(target) as number);

  let request: http.ClientRequest;
  try {
    request = transport.request(target, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(Buffer.byteLength(message.body)) },
      lookup: guardedLookup(allowLoopback, settings.resolveHost ?? defaultResolver),
      agent: false,
    });
  } catch (error) {
    return Promise.resolve(failed(null, describe(error)));
  }

  return new Promise((resolve) => {
    let statusCode: number | null = null;
    let settled = false;
    const finish = (outcome: AttemptOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', abandon);
      request.destroy();
      resolve(outcome);
    };
    const abandon = () => finish({ result: 'abandoned' });
    const timer = setTimeout(
      () => finish(failed(statusCode, `timed out after ${settings.timeoutMs} ms`)),
      settings.timeoutMs,
    );
    signal?.addEventListener('abort', abandon, { once: true });
    request.on('error', (error) => finish(failed(statusCode, describe(error))));
    request.on('response', (response) => {
      statusCode = response.statusCode ?? 0;
      const outcome = outcomeOf(statusCode);
      let received = 0;
      response.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= maxAnswerBytes) finish(outcome);
      });
      response.on('end', () => finish(outcome));
      response.on('error', (error) => finish(failed(statusCode, describe(error))));
    });
    request.end(message.body);
  });
}
