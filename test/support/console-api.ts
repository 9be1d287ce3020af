// The developer console's JSON API, as a script or the devplat CLI calls it.
import { randomUUID } from 'node:crypto';
import { type Answer, jsonOf } from './http.ts';

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
