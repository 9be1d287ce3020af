// The operators' admin API as an operator's script meets it: its own process (services/admin/src/
// serve.ts, as the image's `admin-api` runs it) on a loopback port, an operator tokens file the
// test writes, and every answer checked against the admin API's OpenAPI document
// (packages/1-foundation/contract/openapi/admin-api-*.yaml).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { AdminApiValidator } from '@devplat/contract/openapi';
import { type Answer, jsonOf } from './http.ts';
import { freePort, type StartedProcess, startProcess } from './process.ts';

let validator: AdminApiValidator | undefined;
/** The validator of the admin API's document, loaded once. */
export function adminApiValidator(): AdminApiValidator {
  validator ??= new AdminApiValidator();
  return validator;
}

export interface AdminCallOptions {
  token?: string;
  /** A JSON body (an object), or the raw text of one. */
  body?: unknown;
  headers?: Record<string, string>;
  /** The loopback address to call from (the failed-attempt delays count per client address). */
  from?: string;
}

/**
 * Calls `{adminUrl}{path}` (adminUrl ends in /admin/v1) and asserts the answer conforms to the
 * admin API document: a status the operation declares for the method (405 with the right Allow
 * for a method the path lacks, 404 for an unknown path), its headers, content type and body; and,
 * when the call succeeded, that the document allows the body sent.
 */
export async function adminCall(
  adminUrl: string,
  method: string,
  path: string,
  { token, body, headers: given = {}, from }: AdminCallOptions = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...given };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  let text: string | undefined;
  if (body !== undefined) {
    text = typeof body === 'string' ? body : JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const url = new URL(`${adminUrl}${path}`);
  const answer = await new Promise<{ status: number; headers: Headers; text: string }>((resolve, reject) => {
    const outgoing = request(url, { method, headers, ...(from && { localAddress: from }) }, (response) => {
      let received = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => {
        received += chunk;
      });
      response.on('end', () => {
        const answered = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          for (const each of ([] as string[]).concat(value ?? [])) answered.append(name, each);
        }
        resolve({ status: response.statusCode ?? 0, headers: answered, text: received });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(text);
  });
  // The document's paths are relative to the server URL's path, /admin/v1.
  const basePath = new URL(adminUrl).pathname;
  const relative = url.pathname.startsWith(`${basePath}/`) ? url.pathname.slice(basePath.length) : url.pathname;
  const observed = { method, path: relative, status: answer.status, headers: answer.headers, body: answer.text };
  const errors = adminApiValidator().check(observed);
  if (answer.status >= 200 && answer.status < 300) {
    const contentType = Object.entries(headers).find(([name]) => name.toLowerCase() === 'content-type')?.[1];
    errors.push(...adminApiValidator().checkRequest({ method, path: relative, contentType, body: text }));
  }
  assert.deepEqual(errors, [], `${method} ${url.pathname} does not conform to the admin API document`);
  return { ...answer, json: jsonOf(answer.text) };
}

/** An operator tokens file the test writes: each line `<name> <role> <SHA-256 of the token>`. */
export function operatorTokensFile(file: string) {
  const lines = new Map<string, string>();
  const write = (extra: string[] = []) => writeFileSync(file, [...extra, ...lines.values(), ''].join('\n'));
  return {
    file,
    /** Admits `token` under `name`; `extra` lines (comments, broken lines) go first. */
    add(name: string, role: 'read' | 'write', token: string, extra: string[] = []) {
      lines.set(name, `${name} ${role} ${createHash('sha256').update(token).digest('hex')}`);
      write(extra);
    },
    remove(name: string) {
      lines.delete(name);
      write();
    },
  };
}

export interface RunningAdminApi {
  /** {origin}/admin/v1 */
  url: string;
  management: string;
  process: StartedProcess;
  /** The JSON log lines written so far. */
  logLines(): Record<string, unknown>[];
}

/** Starts the admin API process with `env` (DATABASE_URL, REDIS_URL, ADMIN_TOKENS_FILE, …) on a free loopback port. */
export async function startAdminApi(env: Record<string, string>): Promise<RunningAdminApi> {
  const started = await startProcess(
    process.execPath,
    ['services/admin/src/serve.ts'],
    {
      PATH: process.env.PATH,
      LOG_LEVEL: 'info',
      MANAGEMENT_PORT: '0',
      SHUTDOWN_DELAY_MS: '0',
      ADMIN_PORT: String(await freePort()),
      ...env,
    },
    /^admin API: \S+, management: \S+$/m,
  );
  const [, url, management] = /^admin API: (\S+), management: (\S+)$/m.exec(started.output()) as RegExpExecArray;
  return {
    url: url as string,
    management: management as string,
    process: started,
    logLines: () =>
      started
        .output()
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
