// Requests that carry a value PostgreSQL cannot store, and who sends them: the requests for an
// operation an OpenAPI document describes (route-catalogue.ts), callers with or without credentials
// (renewed when a request ends them, a sign-out say), and the outcome of each.
import { jsonOf } from './http.ts';
import { basicAuth } from './oauth.ts';
import { fillPath, type Operation } from './route-catalogue.ts';
import {
  type BadField,
  escapedWith,
  everyValue,
  formBody,
  jsonBody,
  queryString,
  unstorableText,
} from './unstorable-values.ts';

export interface Sent {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: Buffer;
}

/** What one request was answered: its status and, for a Problem, its code. */
export interface Outcome {
  /** The request, in words (the route, the bad value and where it went, who sent it). */
  what: string;
  status: number;
  requestId: string | null;
  code?: string;
}

/** Who calls: no credentials, or a listener's; `renew` makes new ones when an answer shows them gone. */
export interface Caller {
  label: string;
  headers(): Record<string, string>;
  /** Whether an answer shows the credentials no longer work (a sign-out the fuzz sent, say)… */
  lost?(answer: { status: number; location: string | null; code: string | undefined }): Promise<boolean>;
  /** …and then makes new ones. */
  renew?(): Promise<void>;
  /** Keeps what an answer sets (cookies). */
  take?(response: Response): void;
}

export const anonymous: Caller = { label: 'without credentials', headers: () => ({}) };

/** The body's text when it is to be read; otherwise the body is let go (an event stream runs for seconds). */
export async function textOf(response: Response, read: boolean): Promise<string> {
  if (read) return response.text();
  await response.body?.cancel();
  return '';
}

/** A request to send: made when it is sent, from what its caller knows then (a form's CSRF token). */
export interface Planned {
  what: string;
  build: () => Sent | Promise<Sent>;
}

/** Sends the request as the caller (once more with new credentials when the answer shows them gone). */
export async function send({ what, build }: Planned, caller: Caller): Promise<Outcome> {
  const attempt = async () => {
    const request = await build();
    const response = await fetch(request.url, {
      method: request.method,
      headers: { ...caller.headers(), ...request.headers },
      body: request.body,
      redirect: 'manual',
    });
    caller.take?.(response);
    const streaming = response.headers.get('content-type')?.startsWith('text/event-stream');
    const text = await textOf(response, !streaming);
    return { response, code: (jsonOf(text) as { code?: string } | undefined)?.code };
  };
  let { response, code } = await attempt();
  const answer = { status: response.status, location: response.headers.get('location'), code };
  if (caller.renew && (await caller.lost?.(answer))) {
    await caller.renew();
    ({ response, code } = await attempt());
  }
  return {
    what: `${what} (${caller.label})`,
    status: response.status,
    requestId: response.headers.get('x-request-id'),
    code,
  };
}

/** Sends each request as each caller in turn: a failed authentication is followed by a good one. */
export async function sendAll(requests: Planned[], callers: Caller[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const request of requests) for (const caller of callers) outcomes.push(await send(request, caller));
  return outcomes;
}

const planned = (what: string, request: Sent): Planned => ({ what, build: () => request });

/** What the requests fill in around the bad value: valid path parameters, the client of Basic credentials. */
export interface Fixtures {
  /** A valid value for a path parameter, by its name (client_id, clientId, …). */
  pathValue(name: string): string;
  client: { clientId: string; clientSecret: string };
}

/**
 * The requests for an operation an OpenAPI document describes (or none does: its path alone): each
 * bad value in each path parameter, query parameter, body member (of each example) and Basic
 * credential, the rest valid. With `basicCaller`, its forms leave out client_id and client_secret
 * (the caller sends Basic: one method only).
 */
export function documentedRequests(
  origin: string,
  operation: Operation,
  { pathValue, client }: Fixtures,
  basicCaller = false,
): Planned[] {
  const requests: Planned[] = [];
  const name = `${operation.method} ${operation.listener} ${operation.path}`;
  const required = operation.query
    .filter((parameter) => parameter.required)
    .map((parameter) => [parameter.name, encodeURIComponent(parameter.example)] as [string, string]);
  const bodies = operation.bodies.length > 0 ? operation.bodies : [null];
  const withBody = (body: (typeof bodies)[number], bad?: BadField) => {
    if (!body) return {};
    const fields =
      body.type === 'form' && basicCaller
        ? Object.fromEntries(
            Object.entries(body.fields).filter(
              ([field]) => !['client_id', 'client_secret'].includes(field) || field === bad?.name,
            ),
          )
        : body.fields;
    return body.type === 'json'
      ? { headers: { 'content-type': 'application/json' }, body: jsonBody(fields, bad) }
      : {
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: formBody(
            Object.entries(fields).map(([field, value]) => [field, String(value ?? '')]),
            bad,
          ),
        };
  };
  const at = (path: string, query: [string, string][], body: ReturnType<typeof withBody>): Sent => ({
    method: operation.method,
    url: `${origin}${path}${queryString(query)}`,
    headers: body.headers ?? {},
    body: body.body,
  });
  const fixedPath = fillPath(operation.path, (index) =>
    encodeURIComponent(pathValue(operation.pathParameters[index] as string)),
  );
  operation.pathParameters.forEach((parameter, position) => {
    for (const bad of unstorableText) {
      const path = fillPath(operation.path, (index) =>
        index === position
          ? escapedWith(pathValue(parameter), bad)
          : encodeURIComponent(pathValue(operation.pathParameters[index] as string)),
      );
      requests.push(
        planned(`${name}: ${bad.label} in the path's ${parameter}`, at(path, required, withBody(bodies[0] ?? null))),
      );
    }
  });
  for (const parameter of operation.query) {
    for (const bad of everyValue) {
      const query = [
        ...required.filter(([given]) => given !== parameter.name),
        [parameter.name, escapedWith(parameter.example, bad)] as [string, string],
      ];
      requests.push(
        planned(
          `${name}: ${bad.label} in the query's ${parameter.name}`,
          at(fixedPath, query, withBody(bodies[0] ?? null)),
        ),
      );
    }
  }
  for (const body of operation.bodies) {
    for (const field of Object.keys(body.fields)) {
      for (const bad of everyValue) {
        requests.push(
          planned(
            `${name}: ${bad.label} in the ${body.type} ${field}`,
            at(fixedPath, required, withBody(body, { name: field, value: bad })),
          ),
        );
      }
    }
  }
  // A query parameter the operation does not take, where nothing in the path could act on a fixture.
  if (operation.pathParameters.length === 0) {
    for (const bad of unstorableText) {
      requests.push(
        planned(
          `${name}: ${bad.label} in an undeclared query parameter`,
          at(fixedPath, [...required, ['x', escapedWith('x', bad)]], withBody(bodies[0] ?? null)),
        ),
      );
    }
  }
  if (operation.basic) {
    for (const bad of unstorableText) {
      const credentials = [
        [`${client.clientId}${bad.escaped}`, client.clientSecret, 'escaped in the Basic user id'],
        [client.clientId, `secret${bad.escaped}`, 'escaped in the Basic password'],
      ] as const;
      for (const body of bodies) {
        const sent = withBody(
          body
            ? {
                ...body,
                fields: Object.fromEntries(
                  Object.entries(body.fields).filter(([field]) => field !== 'client_id' && field !== 'client_secret'),
                ),
              }
            : null,
        );
        for (const [id, secret, where] of credentials) {
          requests.push(
            planned(`${name}: ${bad.label} ${where}`, {
              ...at(fixedPath, required, sent),
              headers: { ...sent.headers, authorization: basicAuth(id, secret) },
            }),
          );
        }
        const raw = Buffer.concat([
          Buffer.from('svc_x'),
          bad.raw as Buffer,
          Buffer.from(`:${client.clientSecret}`),
        ]).toString('base64');
        requests.push(
          planned(`${name}: ${bad.label} as raw bytes in the Basic user id`, {
            ...at(fixedPath, required, sent),
            headers: { ...sent.headers, authorization: `Basic ${raw}` },
          }),
        );
      }
    }
  }
  return requests;
}
/** A bearer credential that a request may end (a sign-out): made again when an answer says 401. */
export function bearer(label: string, token: () => string, renew?: () => Promise<void>): Caller {
  return {
    label,
    headers: () => ({ authorization: `Bearer ${token()}` }),
    ...(renew && { lost: async ({ code }: { code: string | undefined }) => code === 'NOT_SIGNED_IN', renew }),
  };
}
