// The developer console's JSON API, as a script or the devplat CLI calls it. Every answer is
// checked against the console API's OpenAPI document (packages/1-foundation/contract/openapi/console-api-*.yaml).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ConsoleApiValidator } from '@devplat/contract/openapi';
import { type Answer, jsonOf } from './http.ts';
import { Jar } from './players.ts';

let validator: ConsoleApiValidator | undefined;
/** The validator of the console API's document, loaded once. */
export function consoleApiValidator(): ConsoleApiValidator {
  validator ??= new ConsoleApiValidator();
  return validator;
}

/**
 * Calls `{consoleOrigin}/api{path}` and asserts the answer conforms to the console API document:
 * a status the operation declares for this method (405 with the right Allow for a method the path
 * lacks, 404 for an unknown path), its headers, content type and body schema; and, when the
 * request succeeded, that the document allows the body that was sent.
 */
export async function consoleCall(
  consoleOrigin: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${consoleOrigin}/api${path}`, { method, headers, body, redirect: 'manual' });
  const text = await response.text();
  const relative = path.split('?')[0] as string;
  const observed = { method, path: relative, status: response.status, headers: response.headers, body: text };
  const errors = consoleApiValidator().check(observed);
  if (response.status >= 200 && response.status < 300) {
    const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    errors.push(...consoleApiValidator().checkRequest({ method, path: relative, contentType, body }));
  }
  assert.deepEqual(errors, [], `${method} /api${path} does not conform to the console API document`);
  return { status: response.status, headers: response.headers, text, json: jsonOf(text) };
}

export interface Developer {
  id: string;
  email: string;
  password: string;
  token: string;
}

/** Registers a full developer account and signs it in. */
export async function registerDeveloper(consoleOrigin: string): Promise<Developer> {
  const email = `dev-${randomUUID()}@example.test`;
  const password = `pw-${randomUUID()}`;
  const account = await consoleCall(consoleOrigin, 'POST', '/accounts', {
    body: { email, password, display_name: 'Grace Hopper' },
  });
  if (account.status !== 201) throw new Error(`registration failed: ${account.text}`);
  const session = await consoleCall(consoleOrigin, 'POST', '/sessions', { body: { email, password } });
  if (session.status !== 201) throw new Error(`sign-in failed: ${session.text}`);
  return { id: account.json.id, email, password, token: session.json.token };
}

/** A developer signed in to the console's web UI: GETs and form POSTs that send the session cookie. */
export interface WebSession {
  get(path: string): Promise<Response>;
  post(path: string, fields: Record<string, string>): Promise<Response>;
}

/** Signs the developer in to the web UI through its sign-in form (CSRF token and cookie included). */
export async function signInToWeb(
  consoleOrigin: string,
  who: { email: string; password: string },
): Promise<WebSession> {
  const jar = new Jar();
  const form = await fetch(`${consoleOrigin}/signin`);
  jar.take(form);
  const csrf = /name="csrf" value="([^"]*)"/.exec(await form.text())?.[1] ?? '';
  const signedIn = await fetch(`${consoleOrigin}/signin`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
    body: new URLSearchParams({ email: who.email, password: who.password, csrf }).toString(),
    redirect: 'manual',
  });
  assert.equal(signedIn.status, 303, await signedIn.text());
  jar.take(signedIn);
  return {
    get: (path) => fetch(`${consoleOrigin}${path}`, { headers: { cookie: jar.header() }, redirect: 'manual' }),
    post: (path, fields) =>
      fetch(`${consoleOrigin}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: jar.header() },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      }),
  };
}
