// The console JSON API over fetch: JSON in and out, the session as a bearer token, and every way a
// call can fail turned into a CliError that says what happened in one sentence.
import { consoleRefusal } from './console-refusals.ts';
import { FailureError, localProblem, type Problem } from './errors.ts';

export interface ApiAnswer<T> {
  status: number;
  /** The body as sent, for --json. */
  text: string;
  body: T;
}

export interface ConsoleClient {
  readonly consoleUrl: string;
  /** `hints` replaces the general advice for a refusal's code with advice that names this call's values. */
  request<T = unknown>(
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    path: string,
    body?: unknown,
    hints?: Record<string, string>,
  ): Promise<ApiAnswer<T>>;
  /** GET a Server-Sent Events stream: the open response once its headers arrived, refusals as request's. */
  stream(path: string, headers: Record<string, string>, signal: AbortSignal): Promise<Response>;
}

export interface ConsoleClientOptions {
  consoleUrl: string;
  /** The session token; absent for register and login. */
  token?: string;
  /** Said when the console refuses the token (it expired, or the session was ended elsewhere). */
  signInAgain?: string[];
  timeoutMs?: number;
}

const requestTimeoutMs = 30_000;

export function createConsoleClient(options: ConsoleClientOptions): ConsoleClient {
  const { consoleUrl, token } = options;
  const refused = (response: Response, text: string, hints: Record<string, string>) =>
    consoleRefusal(problemOf(response, text, 'the console'), {
      signedIn: Boolean(token),
      signInAgain: options.signInAgain ?? [],
      hints,
    });
  return {
    consoleUrl,
    async request<T>(
      method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
      path: string,
      body?: unknown,
      hints: Record<string, string> = {},
    ): Promise<ApiAnswer<T>> {
      const headers: Record<string, string> = { accept: 'application/json' };
      if (token) headers.authorization = `Bearer ${token}`;
      if (body !== undefined) headers['content-type'] = 'application/json';
      let response: Response;
      let text: string;
      try {
        response = await fetch(`${consoleUrl}/api${path}`, {
          method,
          headers,
          redirect: 'manual',
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
          signal: AbortSignal.timeout(options.timeoutMs ?? requestTimeoutMs),
        });
        text = await response.text();
      } catch (error) {
        throw unreachable(consoleUrl, error, options.timeoutMs ?? requestTimeoutMs);
      }
      if (!response.ok) throw refused(response, text, hints);
      return { status: response.status, text, body: parseBody<T>(text, consoleUrl) };
    },
    async stream(path, extra, signal) {
      const headers: Record<string, string> = { accept: 'text/event-stream', ...extra };
      if (token) headers.authorization = `Bearer ${token}`;
      const timeoutMs = options.timeoutMs ?? requestTimeoutMs;
      // The timeout bounds the wait for the headers alone: the stream itself stays open.
      const headersLate = new AbortController();
      const timer = setTimeout(() => headersLate.abort(new DOMException('timed out', 'TimeoutError')), timeoutMs);
      let response: Response;
      try {
        response = await fetch(`${consoleUrl}/api${path}`, {
          headers,
          redirect: 'manual',
          signal: AbortSignal.any([signal, headersLate.signal]),
        });
      } catch (error) {
        throw unreachable(consoleUrl, headersLate.signal.aborted ? headersLate.signal.reason : error, timeoutMs);
      } finally {
        clearTimeout(timer);
      }
      if (response.ok) return response;
      throw refused(response, await response.text(), {});
    },
  };
}

function parseBody<T>(text: string, consoleUrl: string): T {
  if (text === '') return undefined as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new FailureError(
      localProblem(
        'UNEXPECTED_ANSWER',
        'Unexpected answer',
        `The server at ${consoleUrl} answered with something other than JSON: is it the developer console?`,
      ),
    );
  }
}

/** Why a request got no answer, in words: refused, unknown host, too slow. */
export function networkReason(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return `no answer within ${Math.round(timeoutMs / 1000)} s`;
  }
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  const code = cause?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ETIMEDOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
      return 'connection timed out';
    default:
      return code ?? cause?.message ?? 'network error';
  }
}

function unreachable(consoleUrl: string, error: unknown, timeoutMs: number): FailureError {
  return new FailureError(
    localProblem(
      'CONSOLE_UNREACHABLE',
      'Console unreachable',
      `Cannot reach the console at ${consoleUrl} (${networkReason(error, timeoutMs)}): is \`npm start\` running? ` +
        '(Elsewhere: --console-url or DEVPLAT_CONSOLE_URL.)',
    ),
  );
}

/** The Problem of a refusal, or one made up when the answer carries none (a proxy's HTML page). */
export function problemOf(response: Response, text: string, who: string): Problem {
  try {
    const body = JSON.parse(text) as Partial<Problem>;
    if (typeof body.code === 'string' && typeof body.detail === 'string') {
      return {
        type: String(body.type ?? 'about:blank'),
        title: String(body.title ?? response.statusText),
        status: Number(body.status ?? response.status),
        detail: body.detail,
        instance: String(body.instance ?? ''),
        code: body.code,
        request_id: String(body.request_id ?? response.headers.get('x-request-id') ?? ''),
      };
    }
  } catch {
    // not JSON: described below
  }
  return {
    ...localProblem(
      'UNEXPECTED_ANSWER',
      'Unexpected answer',
      `${who} answered ${response.status} ${response.statusText} without a Problem document.`.replace(/^./, (c) =>
        c.toUpperCase(),
      ),
    ),
    status: response.status,
  };
}
